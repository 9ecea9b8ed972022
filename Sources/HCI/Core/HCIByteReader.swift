import BeaconCore

/// Reads HCI fields front to back from a byte slice; the layers above HCI (L2CAP, ATT)
/// read their little-endian PDUs with it too (Core v5.4 Vol 3 Part A 1.4, Part F 3.2.9).
///
/// Every read checks the length first and throws `HCIDecodingError.truncated` instead of
/// trapping: bytes from a controller, a capture file or the air are never trusted.
/// Multi-byte fields are little-endian (Core v5.4 Vol 4 Part E 5.2).
public struct HCIByteReader {
    private let bytes: ArraySlice<UInt8>
    private var position: Int
    /// Names the structure being read in error messages, e.g. "LE Advertising Report".
    public let structure: String

    public init(_ bytes: ArraySlice<UInt8>, structure: String) {
        self.bytes = bytes
        self.position = bytes.startIndex
        self.structure = structure
    }

    public init(_ bytes: [UInt8], structure: String) {
        self.init(bytes[...], structure: structure)
    }

    /// Bytes read so far, counted from the start of the structure.
    public var offset: Int { position - bytes.startIndex }
    public var remainingCount: Int { bytes.endIndex - position }
    public var isAtEnd: Bool { position == bytes.endIndex }

    public mutating func readUInt8() throws(HCIDecodingError) -> UInt8 {
        try require(1)
        defer { position += 1 }
        return bytes[position]
    }

    public mutating func readInt8() throws(HCIDecodingError) -> Int8 {
        Int8(bitPattern: try readUInt8())
    }

    public mutating func readUInt16() throws(HCIDecodingError) -> UInt16 {
        UInt16(truncatingIfNeeded: try readLittleEndian(byteCount: 2))
    }

    /// A 3-octet field, as extended advertising intervals are (Core v5.4 Vol 4 Part E 7.8.53).
    public mutating func readUInt24() throws(HCIDecodingError) -> UInt32 {
        UInt32(truncatingIfNeeded: try readLittleEndian(byteCount: 3))
    }

    public mutating func readUInt32() throws(HCIDecodingError) -> UInt32 {
        UInt32(truncatingIfNeeded: try readLittleEndian(byteCount: 4))
    }

    public mutating func readUInt64() throws(HCIDecodingError) -> UInt64 {
        try readLittleEndian(byteCount: 8)
    }

    public mutating func readBytes(_ count: Int) throws(HCIDecodingError) -> ArraySlice<UInt8> {
        try require(count)
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    /// Everything not read yet; leaves the reader at the end.
    public mutating func readRemaining() -> ArraySlice<UInt8> {
        defer { position = bytes.endIndex }
        return bytes[position...]
    }

    /// A BD_ADDR: six octets, least significant first on the wire (Core v5.4 Vol 2 Part B 1.2).
    public mutating func readAddress() throws(HCIDecodingError) -> BluetoothAddress {
        var value: UInt64 = 0
        for (shift, byte) in try readBytes(6).enumerated() {
            value |= UInt64(byte) << UInt64(8 * shift)
        }
        return BluetoothAddress(truncating: value)
    }

    /// Fails when bytes are left: used where the spec fixes the length of a structure.
    public func expectEnd() throws(HCIDecodingError) {
        guard isAtEnd else {
            throw .trailingBytes(structure: structure, offset: offset, count: remainingCount)
        }
    }

    /// An "invalid value" error located at the current structure.
    public func invalid(_ field: String, _ value: some BinaryInteger, expected: String) -> HCIDecodingError {
        .invalidValue(structure: structure, field: field, value: Int(truncatingIfNeeded: value), expected: expected)
    }

    private func require(_ count: Int) throws(HCIDecodingError) {
        guard count >= 0, remainingCount >= count else {
            throw .truncated(structure: structure, offset: offset, needed: count, available: remainingCount)
        }
    }

    private mutating func readLittleEndian(byteCount: Int) throws(HCIDecodingError) -> UInt64 {
        var value: UInt64 = 0
        for (shift, byte) in try readBytes(byteCount).enumerated() {
            value |= UInt64(byte) << UInt64(8 * shift)
        }
        return value
    }
}

extension Array where Element == UInt8 {
    /// Appends an integer least significant byte first, the HCI byte order.
    public mutating func appendLittleEndian<Value: FixedWidthInteger>(_ value: Value) {
        for index in 0..<(Value.bitWidth / 8) {
            append(UInt8(truncatingIfNeeded: value >> (8 * index)))
        }
    }

    /// Appends the low three bytes of `value`, least significant first.
    public mutating func appendUInt24(_ value: UInt32) {
        for index in 0..<3 {
            append(UInt8(truncatingIfNeeded: value >> (8 * index)))
        }
    }

    public mutating func appendAddress(_ address: BluetoothAddress) {
        append(contentsOf: address.littleEndianBytes)
    }
}

extension HCIByteReader {
    /// Reads a one-octet enumeration; reserved values are an error.
    public mutating func readEnumeration<Value: RawRepresentable & CaseIterable>(
        _ type: Value.Type, field: String
    ) throws(HCIDecodingError) -> Value where Value.RawValue == UInt8 {
        let raw = try readUInt8()
        guard let value = Value(rawValue: raw) else {
            let allowed = Value.allCases.map { HexText.code($0.rawValue) }.joined(separator: ", ")
            throw invalid(field, raw, expected: "one of \(allowed)")
        }
        return value
    }

    /// Reads a 0x00 / 0x01 flag; any other value is an error.
    public mutating func readBoolean(field: String) throws(HCIDecodingError) -> Bool {
        switch try readUInt8() {
        case 0x00: return false
        case 0x01: return true
        case let raw: throw invalid(field, raw, expected: "0x00 or 0x01")
        }
    }
}
