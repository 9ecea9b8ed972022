import BeaconCore

/// The members of one gateway message (a flat JSON object), read with the sighting reader
/// and asked for by name. Every accessor checks the type and the range and says what is
/// wrong in words a user can act on; nothing here traps on outside numbers or text.
struct GatewayPayload {
    struct Problem: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// A message larger than this is not a gateway's report of one device (they are a few
    /// hundred bytes): refused before it is read.
    static let maximumBytes = 16 * 1024

    private var members: [String: SightingJSONObjectReader.Value] = [:]

    init(_ payload: [UInt8]) throws(Problem) {
        guard payload.count <= Self.maximumBytes else {
            throw Problem("message of \(payload.count) bytes, more than the \(Self.maximumBytes) a gateway's report can be")
        }
        do {
            for (key, value) in try SightingJSONObjectReader.members(of: payload) { members[key] = value }
        } catch {
            throw Problem("not a JSON object (column \(error.column): \(error.reason))")
        }
    }

    func has(_ key: String) -> Bool { members[key] != nil && members[key] != .null }

    /// A string member; `nil` when absent or null.
    func string(_ key: String) throws(Problem) -> String? {
        switch members[key] {
        case nil, .null: return nil
        case .string(let text): return text
        default: throw Problem("\"\(key)\" is not a string")
        }
    }

    /// A device address member in any of the gateways' spellings (`c45bbe000001`,
    /// `C4:5B:BE:00:00:01`), read once here; `nil` when absent, null or empty.
    func address(_ key: String) throws(Problem) -> BluetoothAddress? {
        guard let text = try string(key), !text.isEmpty else { return nil }
        guard let spelled = GatewaySpelling.address(text) else {
            throw Problem("\"\(key)\" \(JSONText.stringLiteral(String(text.prefix(40)))) is not a device address")
        }
        return spelled
    }

    /// A number member (or a number written as a string, as some gateways do); `nil` when
    /// absent or null. Only finite values.
    func number(_ key: String) throws(Problem) -> Double? {
        let text: String
        switch members[key] {
        case nil, .null: return nil
        case .number(let written): text = written
        case .string(let written): text = written.gatewayTrimmed
        default: throw Problem("\"\(key)\" is not a number")
        }
        guard text.utf8.count <= 32, let value = Double(text), value.isFinite else {
            throw Problem("\"\(key)\" is not a number: \(JSONText.stringLiteral(String(text.prefix(40))))")
        }
        return value
    }

    /// A whole number within `range`; `nil` when absent or null.
    func integer(_ key: String, in range: ClosedRange<Int>) throws(Problem) -> Int? {
        guard let value = try number(key) else { return nil }
        guard value == value.rounded(), value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
            throw Problem("\"\(key)\" is \(NumberText.plain(value)), not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(value)
    }
}

/// How gateways spell an iBeacon's fields, read back to beaconctl's own.
enum GatewaySpelling {
    /// A proximity UUID as 32 hexadecimal digits, with or without the dashes of the
    /// canonical 8-4-4-4-12 form, in either case.
    static func uuid(_ text: Substring) -> ProximityUUID? {
        let utf8 = Array(text.utf8)
        var digits: [UInt8] = []
        digits.reserveCapacity(32)
        switch utf8.count {
        case 32:
            digits = utf8
        case 36:
            for (index, byte) in utf8.enumerated() {
                if [8, 13, 18, 23].contains(index) {
                    guard byte == UInt8(ascii: "-") else { return nil }
                } else {
                    digits.append(byte)
                }
            }
        default:
            return nil
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        var index = 0
        while index < 32 {
            guard let high = HexDigit.value(digits[index]), let low = HexDigit.value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return ProximityUUID(bytes: bytes)
    }

    /// A device address as `AA:BB:CC:DD:EE:FF` (either case) or as 12 hexadecimal digits
    /// without separators (`c45bbe000001`).
    static func address(_ text: String) -> BluetoothAddress? {
        BluetoothAddress(text) ?? BluetoothAddress(hexDigits: text.utf8)
    }

    /// Major or minor as a gateway wrote it. Gateways built on Theengs Decoder read the two
    /// bytes as a *signed* 16-bit number (`value_from_hex_data` with its default
    /// `canBeNegative`), so 40000 arrives as -25536: with `signed`, -32768...-1 are mapped
    /// back by adding 65536.
    static func identityPart(_ value: Int, signed: Bool) -> UInt16? {
        if value < 0 {
            guard signed, value >= -32768 else { return nil }
            return UInt16(value + 65536)
        }
        return UInt16(exactly: value)
    }

    /// A manufacturer-data hex string (company id little-endian first, as the gateways
    /// write it) read as an iBeacon, or `nil`.
    static func iBeacon(manufacturerDataHex text: String) -> IBeaconAdvertisement? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 50 else { return nil }
        var bytes: [UInt8] = []
        var index = 0
        while index < 50 {
            guard let high = HexDigit.value(utf8[index]), let low = HexDigit.value(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return IBeaconAdvertisement(manufacturerData: bytes)
    }

    /// `UUID-MAJOR-MINOR` (the UUID with or without dashes), as ESPresense (after its
    /// `iBeacon:` prefix), ESP32-mqtt-room and monitor write a beacon's id.
    static func identity(dashedID text: Substring) -> BeaconIdentity? {
        guard let minorDash = text.lastIndex(of: "-") else { return nil }
        let head = text[..<minorDash]
        guard let majorDash = head.lastIndex(of: "-") else { return nil }
        let majorText = head[head.index(after: majorDash)...]
        let minorText = text[text.index(after: minorDash)...]
        guard majorText.utf8.count <= 5, minorText.utf8.count <= 5,
              let major = UInt16(majorText), let minor = UInt16(minorText),
              let uuid = uuid(head[..<majorDash])
        else { return nil }
        return BeaconIdentity(uuid: uuid, major: major, minor: minor)
    }

    /// An RSSI a gateway reported (some filter it to a fraction), as whole dBm.
    static func rssi(_ value: Double) -> Int? {
        let rounded = value.rounded()
        guard rounded >= -127, rounded <= 20 else { return nil }
        return Int(rounded)
    }
}

/// What every decoder does with the parts it read.
enum GatewaySighting {
    /// The receiver as reports name it: `ROOM (kind)`.
    static func receiver(_ name: Substring, kind: GatewayKind) -> String {
        "\(name) (\(kind.rawValue))"
    }

    /// One sighting stamped with the arrival time (Unix time: gateways publish no time of
    /// their own, and every receiver on a broker shares the wall clock), or the reason it
    /// cannot be one.
    static func make(
        identity: BeaconIdentity, measuredPower: Int8, address: BluetoothAddress?, addressIsRandom: Bool = false,
        rssi: Int?, arrivalTime: Double, receiver: String
    ) -> GatewayReading {
        guard Sighting.acceptedTimes.contains(arrivalTime) else {
            return .malformed("arrival time \(arrivalTime) is outside the times a sighting may carry")
        }
        return .sightings([Sighting(
            advertisement: IBeaconAdvertisement(identity: identity, measuredPower: measuredPower),
            address: address, addressIsRandom: addressIsRandom, rssi: rssi, time: arrivalTime, clock: .unix,
            receiver: receiver)])
    }

    /// The topic's levels after `base` (`nil` when the topic is not under it).
    static func levels(of topic: String, under base: String) -> [Substring]? {
        let prefix = base + "/"
        guard topic.hasPrefix(prefix) else { return nil }
        return topic.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
    }

    /// A receiver's status word (`online`/`offline` and the like), or `nil` when the
    /// payload is neither.
    static func status(_ payload: [UInt8], online: [String], offline: [String]) -> Bool? {
        guard payload.count <= 64 else { return nil }
        let word = String(decoding: payload, as: UTF8.self)
        if online.contains(word) { return true }
        if offline.contains(word) { return false }
        return nil
    }

    static func quoted(_ payload: [UInt8]) -> String {
        JSONText.stringLiteral(String(decoding: payload.prefix(64), as: UTF8.self))
    }
}

extension String {
    fileprivate var gatewayTrimmed: String {
        var text = Substring(self)
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
