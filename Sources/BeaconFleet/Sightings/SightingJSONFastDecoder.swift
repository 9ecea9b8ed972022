import BeaconCore
import HCI

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the lines `beaconctl` writes (and most other writers do) straight into a
/// `Sighting`: no dictionary, no `String` per key, no copy of the line. Whatever it is not
/// sure of — an escape, a nested value, an unknown or repeated field, a number out of range,
/// any error at all — it leaves `undecided`, and the full reader (`SightingJSONObjectReader`
/// and `SightingFields`) reads the line instead. So every accepted line gives the same
/// sighting either way, and every error, its wording and its column, comes from one place.
package struct SightingJSONFastDecoder {
    package enum Outcome {
        case sighting(Sighting)
        case blank
        case undecided
    }

    /// The receiver repeats on every line of a file: its `String` is made once.
    private var lastReceiverBytes: [UInt8] = []
    private var lastReceiver = ""

    package init() {}

    package mutating func decode(_ line: UnsafeBufferPointer<UInt8>, defaults: SightingJSONLines.Defaults) -> Outcome {
        var scanner = Scanner(bytes: line)
        guard scanner.skipBlank() else { return .blank }
        guard line.count <= SightingJSONLines.maximumLineLength, let fields = scanner.readObject() else { return .undecided }
        guard let uuid = fields.uuid, let major = fields.major, let minor = fields.minor,
              let measuredPower = fields.measuredPower, let time = fields.time,
              Sighting.acceptedTimes.contains(time)
        else { return .undecided }
        var receiver = defaults.receiver
        if let range = fields.receiver {
            let bytes = UnsafeBufferPointer(rebasing: line[range])
            let same = bytes.count == lastReceiverBytes.count
                && (bytes.isEmpty || lastReceiverBytes.withUnsafeBufferPointer { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 })
            if !same {
                lastReceiverBytes = Array(bytes)
                lastReceiver = String(decoding: bytes, as: UTF8.self)
            }
            receiver = lastReceiver
        }
        let advertisement = IBeaconAdvertisement(
            identity: BeaconIdentity(uuid: uuid, major: UInt16(major), minor: UInt16(minor)),
            measuredPower: Int8(measuredPower))
        return .sighting(Sighting(
            advertisement: advertisement, address: fields.address, addressIsRandom: fields.addressIsRandom ?? false,
            rssi: fields.rssi, time: time, clock: fields.clock ?? defaults.clock, receiver: receiver))
    }

    private struct Fields {
        var uuid: ProximityUUID?
        var major: Int?
        var minor: Int?
        var measuredPower: Int?
        var address: BluetoothAddress?
        var addressIsRandom: Bool?
        var rssi: Int?
        var time: Double?
        var clock: SightingClock?
        /// The receiver's bytes (without quotes); `nil` when absent or null.
        var receiver: Range<Int>?
        var seen: UInt16 = 0
    }

    private enum Key: UInt16 {
        case uuid = 1, major = 2, minor = 4, measuredPower = 8, address = 16, addressRandom = 32, rssi = 64, time = 128, receiver = 256, clock = 512
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        /// False when the line holds only spaces, tabs and `\r` (what the full reader calls blank).
        mutating func skipBlank() -> Bool {
            bytes.contains { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }
        }

        func peek() -> UInt8? {
            position < bytes.count ? bytes[position] : nil
        }

        mutating func skipWhitespace() {
            while position < bytes.count {
                let byte = bytes[position]
                guard byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D else { return }
                position += 1
            }
        }

        mutating func expect(_ byte: UInt8) -> Bool {
            guard peek() == byte else { return false }
            position += 1
            return true
        }

        mutating func expect(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard bytes.count - position >= count else { return false }
            for index in 0..<count where bytes[position + index] != literal.utf8Start[index] { return false }
            position += count
            return true
        }

        mutating func readObject() -> Fields? {
            var fields = Fields()
            skipWhitespace()
            guard expect(UInt8(ascii: "{")) else { return nil }
            while true {
                skipWhitespace()
                guard let keyRange = readPlainString(), let key = Self.key(UnsafeBufferPointer(rebasing: bytes[keyRange])),
                      fields.seen & key.rawValue == 0
                else { return nil }
                fields.seen |= key.rawValue
                skipWhitespace()
                guard expect(UInt8(ascii: ":")) else { return nil }
                skipWhitespace()
                guard readValue(of: key, into: &fields) else { return nil }
                skipWhitespace()
                if expect(UInt8(ascii: ",")) { continue }
                guard expect(UInt8(ascii: "}")) else { return nil }
                skipWhitespace()
                return position == bytes.count ? fields : nil
            }
        }

        private static func key(_ name: UnsafeBufferPointer<UInt8>) -> Key? {
            func equals(_ literal: StaticString) -> Bool {
                name.count == literal.utf8CodeUnitCount && memcmp(name.baseAddress!, literal.utf8Start, name.count) == 0
            }
            switch name.count {
            case 4: return equals("uuid") ? .uuid : equals("rssi") ? .rssi : equals("time") ? .time : nil
            case 5: return equals("major") ? .major : equals("minor") ? .minor : equals("clock") ? .clock : nil
            case 7: return equals("address") ? .address : nil
            case 8: return equals("receiver") ? .receiver : nil
            case 14: return equals("measured_power") ? .measuredPower : equals("address_random") ? .addressRandom : nil
            default: return nil
            }
        }

        private mutating func readValue(of key: Key, into fields: inout Fields) -> Bool {
            switch key {
            case .uuid:
                guard let range = readPlainString(), let uuid = Self.uuid(UnsafeBufferPointer(rebasing: bytes[range])) else { return false }
                fields.uuid = uuid
            case .address:
                // null, absent or "" (what earlier versions wrote): no address, as the full reader reads it.
                if expect("null") { return true }
                guard let range = readPlainString() else { return false }
                if range.isEmpty { return true }
                guard let address = BluetoothAddress(utf8: UnsafeBufferPointer(rebasing: bytes[range])) else { return false }
                fields.address = address
            case .receiver:
                if expect("null") { return true }
                guard let range = readPlainString() else { return false }
                fields.receiver = range
            case .major:
                guard let value = readInteger(), (0...65_535).contains(value) else { return false }
                fields.major = value
            case .minor:
                guard let value = readInteger(), (0...65_535).contains(value) else { return false }
                fields.minor = value
            case .measuredPower:
                guard let value = readInteger(), (-128...127).contains(value) else { return false }
                fields.measuredPower = value
            case .rssi:
                if expect("null") { return true }
                guard let value = readInteger(), (-128...126).contains(value) else { return false }
                fields.rssi = value
            case .addressRandom:
                if expect("true") {
                    fields.addressIsRandom = true
                } else if expect("false") {
                    fields.addressIsRandom = false
                } else {
                    return expect("null")
                }
            case .time:
                guard let value = readNumber() else { return false }
                fields.time = value
            case .clock:
                // Anything but the two words (null included) is the full reader's to judge.
                if expect("\"elapsed\"") {
                    fields.clock = .elapsed
                } else if expect("\"unix\"") {
                    fields.clock = .unix
                } else {
                    return false
                }
            }
            return true
        }

        /// The bytes between double quotes, for a string without escapes or control characters.
        private mutating func readPlainString() -> Range<Int>? {
            guard expect(UInt8(ascii: "\"")) else { return nil }
            let start = position
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    position += 1
                    return start..<(position - 1)
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                position += 1
            }
            return nil
        }

        /// `-?(0|[1-9][0-9]*)`, at most 18 digits, not followed by a fraction or exponent.
        private mutating func readInteger() -> Int? {
            let negative = expect(UInt8(ascii: "-"))
            let start = position
            var value = 0
            // Wrapping: a run of any length is scanned; beyond 18 digits it is left undecided.
            while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                value = value &* 10 &+ Int(byte - UInt8(ascii: "0"))
                position += 1
            }
            let digits = position - start
            guard digits > 0, digits <= 18, !(digits > 1 && bytes[start] == UInt8(ascii: "0")) else { return nil }
            if let next = peek(), next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") { return nil }
            return negative ? -value : value
        }

        private static let powersOfTen: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]

        /// A JSON number without exponent, as `Double(text)` reads it. Up to 15 digits the
        /// value is exact: the digits as an integer and a power of ten are both exact doubles,
        /// so one division rounds correctly (Clinger's fast path); longer ones go to `Double`.
        private mutating func readNumber() -> Double? {
            let start = position
            let negative = expect(UInt8(ascii: "-"))
            let integerStart = position
            var mantissa: UInt64 = 0
            var digits = 0
            while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                mantissa = mantissa &* 10 &+ UInt64(byte - UInt8(ascii: "0"))
                digits += 1
                position += 1
            }
            guard position > integerStart, !(position - integerStart > 1 && bytes[integerStart] == UInt8(ascii: "0")) else { return nil }
            var fractionDigits = 0
            if expect(UInt8(ascii: ".")) {
                while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                    mantissa = mantissa &* 10 &+ UInt64(byte - UInt8(ascii: "0"))
                    digits += 1
                    fractionDigits += 1
                    position += 1
                }
                guard fractionDigits > 0 else { return nil }
            }
            if let next = peek(), next == UInt8(ascii: "e") || next == UInt8(ascii: "E") { return nil }
            if digits > 15 {
                guard let value = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)),
                      value.isFinite
                else { return nil }
                return value
            }
            let magnitude = Double(mantissa) / Self.powersOfTen[fractionDigits]
            return negative ? -magnitude : magnitude
        }

        /// The canonical 8-4-4-4-12 form, either case (what `ProximityUUID(parsing:)` accepts).
        private static func uuid(_ text: UnsafeBufferPointer<UInt8>) -> ProximityUUID? {
            guard text.count == 36 else { return nil }
            var high: UInt64 = 0
            var low: UInt64 = 0
            var nibbles = 0
            for offset in 0..<36 {
                let byte = text[offset]
                if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                    guard byte == UInt8(ascii: "-") else { return nil }
                    continue
                }
                guard let value = HexDigit.value(byte) else { return nil }
                if nibbles < 16 {
                    high = high << 4 | UInt64(value)
                } else {
                    low = low << 4 | UInt64(value)
                }
                nibbles += 1
            }
            return ProximityUUID(high: high, low: low)
        }
    }
}
