import HCI

/// The Supported_Commands bit field of the commands the virtual controller implements
/// (Core v5.4 Vol 4 Part E 6.27: octet and bit of each command).
enum SupportedCommandTable {
    private static let common: [(octet: Int, bit: Int)] = [
        (0, 5),  // Disconnect
        (5, 6),  // Set Event Mask
        (5, 7),  // Reset
        (14, 3),  // Read Local Version Information
        (14, 5),  // Read Local Supported Features
        (15, 1),  // Read BD_ADDR
        (25, 0),  // LE Set Event Mask
        (25, 1),  // LE Read Buffer Size [v1]
        (25, 2),  // LE Read Local Supported Features
        (25, 4),  // LE Set Random Address
        (25, 5),  // LE Set Advertising Parameters
        (25, 6),  // LE Read Advertising Physical Channel Tx Power
        (25, 7),  // LE Set Advertising Data
        (26, 1),  // LE Set Advertising Enable
        (26, 2),  // LE Set Scan Parameters
        (26, 3),  // LE Set Scan Enable
        (26, 4),  // LE Create Connection
        (26, 5),  // LE Create Connection Cancel
    ]

    private static let extended: [(octet: Int, bit: Int)] = [
        (36, 1),  // LE Set Advertising Set Random Address
        (36, 2),  // LE Set Extended Advertising Parameters
        (36, 3),  // LE Set Extended Advertising Data
        (36, 5),  // LE Set Extended Advertising Enable
        (36, 6),  // LE Read Maximum Advertising Data Length
        (36, 7),  // LE Read Number of Supported Advertising Sets
        (37, 0),  // LE Remove Advertising Set
        (37, 1),  // LE Clear Advertising Sets
        (37, 5),  // LE Set Extended Scan Parameters
        (37, 6),  // LE Set Extended Scan Enable
        (37, 7),  // LE Extended Create Connection
    ]

    static func supportedCommands(extendedAdvertising: Bool) -> SupportedCommands {
        var octets = [UInt8](repeating: 0, count: SupportedCommands.octetCount)
        for (octet, bit) in common + (extendedAdvertising ? extended : []) {
            octets[octet] |= 1 << UInt8(bit)
        }
        return SupportedCommands(octets: octets)
    }
}
