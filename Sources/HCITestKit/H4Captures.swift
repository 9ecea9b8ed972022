import HCI

/// Byte streams for the H4 tests, recorded rather than invented.
public enum H4Captures {
    /// What a host read from RootCanal 1.10.0's HCI port, packet by packet, while it ran:
    /// Reset, Read Local Version Information, Read BD_ADDR, LE Read Local Supported
    /// Features, Set Event Mask, LE Set Event Mask, LE Set Scan Parameters, LE Set Scan
    /// Enable; then LE Advertising Reports of an iBeacon advertised by a second RootCanal
    /// connection (RSSI stepping by 5 dB, as RootCanal does); then LE Set Scan Enable (off).
    /// Their concatenation is the captured stream, byte for byte.
    public static let rootCanalScanSession: [HCIPacket] = [
        "040e0401030c00",
        "040e0c010110000c00000ce0000000",
        "040e0a010910000117de104cda",
        "040e0c01032000df39003000000000",
        "040e0401010c00",
        "040e0401012000",
        "040e04010b2000",
        "040e04010c2000",
        "043e2a020103000017de104cda1e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5fb",
        "043e2a020103000017de104cda1e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5f6",
        "043e2a020103000017de104cda1e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5f1",
        "043e2a020103000017de104cda1e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5ec",
        "043e2a020103000017de104cda1e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5e7",
        "043e2a020103000017de104cda1e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5e2",
        "043e2a020103000017de104cda1e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5dd",
        "043e2a020103000017de104cda1e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5d8",
        "040e04010c2000",
    ].map(packet(hex:))

    /// The HCI_Reset command (opcode 0x0C03, no parameters) as a host sends it.
    public static let resetCommand = HCIPacket(type: .command, body: [0x03, 0x0C, 0x00])

    /// Bytes from hex digits; test data only, so malformed input is a test bug and traps.
    public static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        precondition(digits.count.isMultiple(of: 2), "odd number of hex digits in \(hex)")
        return stride(from: 0, to: digits.count, by: 2).map { index in
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16)
            else { preconditionFailure("not hex: \(hex)") }
            return byte
        }
    }

    /// A packet from its H4 bytes, indicator first.
    public static func packet(hex: String) -> HCIPacket {
        let bytes = bytes(hex: hex)
        guard let first = bytes.first, let type = HCIPacketType(rawValue: first) else {
            preconditionFailure("no packet indicator in \(hex)")
        }
        return HCIPacket(type: type, body: Array(bytes.dropFirst()))
    }
}
