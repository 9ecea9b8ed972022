import BeaconCore

/// An integer's place in a characteristic: its width, signedness and byte order.
public struct IntegerLayout: Hashable, Sendable {
    public enum ByteOrder: String, Hashable, Sendable, CaseIterable {
        case big, little
    }

    /// 1, 2 or 4 bytes.
    public var width: Int
    public var signed: Bool
    /// Meaningless (and `.little`) for one byte.
    public var byteOrder: ByteOrder

    public init(width: Int, signed: Bool, byteOrder: ByteOrder = .little) {
        self.width = width
        self.signed = signed
        self.byteOrder = byteOrder
    }

    public var range: ClosedRange<Int> {
        let bits = width * 8
        return signed ? -(1 << (bits - 1))...((1 << (bits - 1)) - 1) : 0...((1 << bits) - 1)
    }

    /// `value`'s bytes, `nil` when it does not fit.
    public func encode(_ value: Int) -> [UInt8]? {
        guard range.contains(value) else { return nil }
        let pattern = UInt32(truncatingIfNeeded: value)
        let littleEndian = (0..<width).map { UInt8(truncatingIfNeeded: pattern >> (8 * $0)) }
        return byteOrder == .little ? littleEndian : littleEndian.reversed()
    }

    /// The value of exactly `width` bytes, `nil` for another length.
    public func decode(_ bytes: [UInt8]) -> Int? {
        guard bytes.count == width else { return nil }
        let ordered = byteOrder == .little ? bytes : bytes.reversed()
        var pattern: UInt32 = 0
        for (index, byte) in ordered.enumerated() { pattern |= UInt32(byte) << (8 * index) }
        guard signed else { return Int(pattern) }
        let shift = 32 - 8 * width
        return Int(Int32(bitPattern: pattern << shift) >> shift)
    }
}

/// How a characteristic's bytes hold a value.
public enum ValueEncoding: Hashable, Sendable {
    /// 16 bytes, most significant first, as the iBeacon frame carries a proximity UUID.
    case uuid
    /// A plain integer (major, minor, measured power in dBm, TX power in dBm, battery %).
    case integer(IntegerLayout)
    /// An advertising interval as a count of `unitMicroseconds` (1000 for 1 ms, 625 for
    /// Bluetooth's 0.625 ms slots).
    case interval(IntegerLayout, unitMicroseconds: Int)
    /// A TX power chosen from a table: the integer is an index into `levels` (dBm).
    case levels(IntegerLayout, levels: [Int])
    /// Text in ASCII, at most `maxLength` bytes (trailing NULs dropped when read).
    case ascii(maxLength: Int)

    /// The bytes a value of this encoding occupies (the most, for text).
    public var length: Int {
        switch self {
        case .uuid: 16
        case .integer(let layout), .interval(let layout, _), .levels(let layout, _): layout.width
        case .ascii(let maxLength): maxLength
        }
    }

    /// The number `bytes` hold (for integers, intervals in whole milliseconds, levels in
    /// dBm), or why they do not hold one.
    public func decodeNumber(_ bytes: [UInt8]) -> Result<Int, ValueDecodingError> {
        switch self {
        case .integer(let layout):
            guard let value = layout.decode(bytes) else { return .failure(.length(expected: layout.width, got: bytes.count)) }
            return .success(value)
        case .interval(let layout, let unit):
            guard let count = layout.decode(bytes) else { return .failure(.length(expected: layout.width, got: bytes.count)) }
            // An interval is never negative (the reader gives intervals unsigned layouts only).
            guard count >= 0 else { return .failure(.outOfRange("a negative interval (\(count) units)")) }
            // count × unit µs, rounded to the nearest millisecond; at most 2^32 × 10^7 µs fits Int.
            let (micro, overflow) = count.multipliedReportingOverflow(by: unit)
            guard !overflow else { return .failure(.outOfRange("\(count) units")) }
            return .success((micro + 500) / 1000)
        case .levels(let layout, let levels):
            guard let index = layout.decode(bytes) else { return .failure(.length(expected: layout.width, got: bytes.count)) }
            guard levels.indices.contains(index) else { return .failure(.outOfRange("level \(index) of \(levels.count)")) }
            return .success(levels[index])
        case .uuid, .ascii:
            return .failure(.notANumber)
        }
    }

    /// The bytes for `value`, or why this encoding cannot hold it (a sentence).
    public func encodeNumber(_ value: Int) -> Result<[UInt8], ValueEncodingError> {
        switch self {
        case .integer(let layout):
            guard let bytes = layout.encode(value) else { return .failure(.init("\(value) does not fit \(layout.phrase) (\(layout.range.lowerBound)…\(layout.range.upperBound))")) }
            return .success(bytes)
        case .interval(let layout, let unit):
            let (micro, overflow) = value.multipliedReportingOverflow(by: 1000)
            guard !overflow, micro % unit == 0 else {
                return .failure(.init("\(value) ms is not a whole number of the beacon's \(Self.unitText(unit)) units"))
            }
            guard let bytes = layout.encode(micro / unit) else {
                return .failure(.init("\(value) ms is \(micro / unit) units of \(Self.unitText(unit)), beyond \(layout.phrase)"))
            }
            return .success(bytes)
        case .levels(let layout, let levels):
            guard let index = levels.firstIndex(of: value), let bytes = layout.encode(index) else {
                return .failure(.init("\(value) dBm is not one of the beacon's levels: \(levels.map(String.init).joined(separator: ", ")) dBm"))
            }
            return .success(bytes)
        case .uuid, .ascii:
            return .failure(.init("this characteristic holds no number"))
        }
    }

    /// `uuid`'s 16 bytes, most significant first.
    public static func uuidBytes(_ uuid: ProximityUUID) -> [UInt8] { uuid.bytes }

    /// The proximity UUID of exactly 16 bytes.
    public static func decodeUUID(_ bytes: [UInt8]) -> Result<ProximityUUID, ValueDecodingError> {
        guard bytes.count == 16, let uuid = ProximityUUID(bytes: bytes) else { return .failure(.length(expected: 16, got: bytes.count)) }
        return .success(uuid)
    }

    /// Text of at most `maxLength` bytes, trailing NULs dropped; non-ASCII bytes refused.
    public static func decodeASCII(_ bytes: [UInt8], maxLength: Int) -> Result<String, ValueDecodingError> {
        guard bytes.count <= maxLength else { return .failure(.length(expected: maxLength, got: bytes.count)) }
        var text = bytes[...]
        while text.last == 0 { text = text.dropLast() }
        guard text.allSatisfy({ (0x20...0x7E).contains($0) }) else { return .failure(.notText) }
        return .success(String(decoding: text, as: UTF8.self))
    }

    static func unitText(_ microseconds: Int) -> String {
        microseconds % 1000 == 0 ? "\(microseconds / 1000) ms" : "\(NumberText.plain(Double(microseconds) / 1000)) ms"
    }
}

extension IntegerLayout {
    /// "an unsigned 16-bit big-endian integer".
    var phrase: String {
        let order = width == 1 ? "" : " \(byteOrder)-endian"
        return "a\(signed ? " signed" : "n unsigned") \(width * 8)-bit\(order) integer"
    }
}

/// Why a characteristic's bytes do not hold a value of its encoding.
public enum ValueDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    case length(expected: Int, got: Int)
    case outOfRange(String)
    case notText
    case notANumber

    public var description: String {
        switch self {
        case .length(let expected, let got): "\(got) bytes where the profile says \(expected)"
        case .outOfRange(let what): "\(what) is outside the profile's table"
        case .notText: "bytes that are not printable ASCII text"
        case .notANumber: "a value that is not a number"
        }
    }
}

/// Why a value cannot be written in a characteristic's encoding.
public struct ValueEncodingError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
