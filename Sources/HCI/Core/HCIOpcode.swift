/// A command opcode: OGF in the top 6 bits, OCF in the low 10 (Core v5.4 Vol 4 Part E 5.4.1).
public struct HCIOpcode: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// `nil` when the group does not fit in 6 bits or the command in 10.
    public init?(groupField: UInt8, commandField: UInt16) {
        guard groupField <= 0x3F, commandField <= 0x3FF else { return nil }
        self.rawValue = UInt16(groupField) << 10 | commandField
    }

    /// OGF: the command group (0x01 link control, 0x03 controller & baseband,
    /// 0x04 informational, 0x08 LE controller, 0x3F vendor-specific).
    public var groupField: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 10) }

    /// OCF: the command within its group.
    public var commandField: UInt16 { rawValue & 0x3FF }

    /// Opcode 0x0000: carried by a Command Complete that only hands back command credits.
    public static let nop = HCIOpcode(rawValue: 0x0000)

    public var isVendorSpecific: Bool { groupField == 0x3F }

    /// The command's name as the Core specification writes it, without the `HCI_` prefix
    /// and with spaces (`LE Set Advertising Parameters`); `nil` when this table lacks it.
    public var name: String? { Self.names[rawValue] }

    /// The name when known, otherwise the opcode split into OGF and OCF.
    public var displayName: String {
        if let name { return name }
        if self == .nop { return "NOP" }
        if isVendorSpecific { return "vendor-specific command \(HexText.code(rawValue, digits: 4))" }
        return "HCI command \(HexText.code(rawValue, digits: 4)) (OGF \(HexText.code(groupField)), OCF \(HexText.code(commandField, digits: 3)))"
    }

    /// `LE Set Advertising Parameters (0x2006)`.
    public var description: String {
        name.map { "\($0) (\(HexText.code(rawValue, digits: 4)))" } ?? displayName
    }

    public static func < (lhs: HCIOpcode, rhs: HCIOpcode) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

// Opcodes of the commands this package speaks (Core v5.4 Vol 4 Part E 7.3, 7.4, 7.8).
extension HCIOpcode {
    // Link Control (OGF 0x01)
    public static let disconnect = HCIOpcode(rawValue: 0x0406)
    // Controller & Baseband (OGF 0x03)
    public static let setEventMask = HCIOpcode(rawValue: 0x0C01)
    public static let reset = HCIOpcode(rawValue: 0x0C03)
    // Informational parameters (OGF 0x04)
    public static let readLocalVersionInformation = HCIOpcode(rawValue: 0x1001)
    public static let readLocalSupportedCommands = HCIOpcode(rawValue: 0x1002)
    /// Read Local Supported Features (Core v5.4 Vol 4 Part E 7.4.3): `LMP_Features[8]`.
    /// Only the virtual controller answers it here; beaconctl reads the LE features instead.
    public static let readLocalSupportedFeatures = HCIOpcode(rawValue: 0x1003)
    public static let readBufferSize = HCIOpcode(rawValue: 0x1005)
    public static let readBDADDR = HCIOpcode(rawValue: 0x1009)
    // LE Controller (OGF 0x08)
    public static let leSetEventMask = HCIOpcode(rawValue: 0x2001)
    public static let leReadBufferSize = HCIOpcode(rawValue: 0x2002)
    public static let leReadLocalSupportedFeatures = HCIOpcode(rawValue: 0x2003)
    public static let leSetRandomAddress = HCIOpcode(rawValue: 0x2005)
    public static let leSetAdvertisingParameters = HCIOpcode(rawValue: 0x2006)
    public static let leReadAdvertisingPhysicalChannelTxPower = HCIOpcode(rawValue: 0x2007)
    public static let leSetAdvertisingData = HCIOpcode(rawValue: 0x2008)
    public static let leSetScanResponseData = HCIOpcode(rawValue: 0x2009)
    public static let leSetAdvertisingEnable = HCIOpcode(rawValue: 0x200A)
    public static let leSetScanParameters = HCIOpcode(rawValue: 0x200B)
    public static let leSetScanEnable = HCIOpcode(rawValue: 0x200C)
    public static let leCreateConnection = HCIOpcode(rawValue: 0x200D)
    public static let leCreateConnectionCancel = HCIOpcode(rawValue: 0x200E)
    public static let leConnectionUpdate = HCIOpcode(rawValue: 0x2013)
    public static let leSetAdvertisingSetRandomAddress = HCIOpcode(rawValue: 0x2035)
    public static let leSetExtendedAdvertisingParameters = HCIOpcode(rawValue: 0x2036)
    public static let leSetExtendedAdvertisingData = HCIOpcode(rawValue: 0x2037)
    public static let leSetExtendedScanResponseData = HCIOpcode(rawValue: 0x2038)
    public static let leSetExtendedAdvertisingEnable = HCIOpcode(rawValue: 0x2039)
    public static let leReadMaximumAdvertisingDataLength = HCIOpcode(rawValue: 0x203A)
    public static let leReadNumberOfSupportedAdvertisingSets = HCIOpcode(rawValue: 0x203B)
    public static let leRemoveAdvertisingSet = HCIOpcode(rawValue: 0x203C)
    public static let leClearAdvertisingSets = HCIOpcode(rawValue: 0x203D)
    public static let leSetExtendedScanParameters = HCIOpcode(rawValue: 0x2041)
    public static let leSetExtendedScanEnable = HCIOpcode(rawValue: 0x2042)
    public static let leExtendedCreateConnection = HCIOpcode(rawValue: 0x2043)
    public static let leReadTransmitPower = HCIOpcode(rawValue: 0x204B)
}

extension HCIOpcode {
    /// Names for messages. Besides the commands above, the ones another program on the same
    /// controller commonly sends, so that a log of foreign traffic stays readable.
    static let names: [UInt16: String] = [
        // Link Control (OGF 0x01)
        0x0401: "Inquiry",
        0x0402: "Inquiry Cancel",
        0x0405: "Create Connection",
        0x0406: "Disconnect",
        0x041D: "Read Remote Version Information",
        // Controller & Baseband (OGF 0x03)
        0x0C01: "Set Event Mask",
        0x0C03: "Reset",
        0x0C05: "Set Event Filter",
        0x0C13: "Write Local Name",
        0x0C14: "Read Local Name",
        0x0C1A: "Write Scan Enable",
        0x0C23: "Read Class of Device",
        0x0C24: "Write Class of Device",
        0x0C63: "Set Event Mask Page 2",
        0x0C6D: "Write LE Host Support",
        // Informational (OGF 0x04)
        0x1001: "Read Local Version Information",
        0x1002: "Read Local Supported Commands",
        0x1003: "Read Local Supported Features",
        0x1004: "Read Local Extended Features",
        0x1005: "Read Buffer Size",
        0x1009: "Read BD_ADDR",
        // LE Controller (OGF 0x08)
        0x2001: "LE Set Event Mask",
        0x2002: "LE Read Buffer Size",
        0x2003: "LE Read Local Supported Features",
        0x2005: "LE Set Random Address",
        0x2006: "LE Set Advertising Parameters",
        0x2007: "LE Read Advertising Physical Channel Tx Power",
        0x2008: "LE Set Advertising Data",
        0x2009: "LE Set Scan Response Data",
        0x200A: "LE Set Advertising Enable",
        0x200B: "LE Set Scan Parameters",
        0x200C: "LE Set Scan Enable",
        0x200D: "LE Create Connection",
        0x200E: "LE Create Connection Cancel",
        0x200F: "LE Read Filter Accept List Size",
        0x2010: "LE Clear Filter Accept List",
        0x2011: "LE Add Device To Filter Accept List",
        0x2012: "LE Remove Device From Filter Accept List",
        0x2013: "LE Connection Update",
        0x2016: "LE Read Remote Features",
        0x2018: "LE Rand",
        0x201C: "LE Read Supported States",
        0x2027: "LE Add Device To Resolving List",
        0x2029: "LE Clear Resolving List",
        0x202D: "LE Set Address Resolution Enable",
        0x202E: "LE Set Resolvable Private Address Timeout",
        0x202F: "LE Read Maximum Data Length",
        0x2030: "LE Read PHY",
        0x2031: "LE Set Default PHY",
        0x2035: "LE Set Advertising Set Random Address",
        0x2036: "LE Set Extended Advertising Parameters",
        0x2037: "LE Set Extended Advertising Data",
        0x2038: "LE Set Extended Scan Response Data",
        0x2039: "LE Set Extended Advertising Enable",
        0x203A: "LE Read Maximum Advertising Data Length",
        0x203B: "LE Read Number of Supported Advertising Sets",
        0x203C: "LE Remove Advertising Set",
        0x203D: "LE Clear Advertising Sets",
        0x203E: "LE Set Periodic Advertising Parameters",
        0x203F: "LE Set Periodic Advertising Data",
        0x2040: "LE Set Periodic Advertising Enable",
        0x2041: "LE Set Extended Scan Parameters",
        0x2042: "LE Set Extended Scan Enable",
        0x2043: "LE Extended Create Connection",
        0x204B: "LE Read Transmit Power",
        0x204E: "LE Set Privacy Mode",
        0x207F: "LE Set Extended Advertising Parameters [v2]",
    ]
}
