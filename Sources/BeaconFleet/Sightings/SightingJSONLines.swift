import BeaconCore
import HCI

/// The JSON-lines form of a `Sighting`: one object per line, fields in this order
/// (documented in docs/sightings.md, stable across versions):
///
///     {"uuid":"89D6E936-F61F-4227-BCD2-6E94C5A6B2E3","major":1,"minor":2,"measured_power":-59,
///      "address":"C4:5B:BE:12:34:56","address_random":false,"rssi":-63,"time":12.345678,"clock":"elapsed",
///      "receiver":"hci0"}
///
/// A sighting without an address (a gateway that publishes none) has `"address":null`.
///
/// Reading is strict per line and lenient about the stream: blank lines are skipped, fields
/// this version does not know are ignored, telemetry lines (`TelemetryJSONLines`) are read
/// beside sightings, and any other line that is not a valid sighting is an error naming the
/// line and column (a skipped line would silently understate what was heard).
public enum SightingJSONLines {
    /// The longest line read, in bytes: a sighting takes under 300, so a longer line means
    /// the input is not a sighting stream (a binary file, a log).
    public static let maximumLineLength = 16_384

    /// One line of JSON, without the newline.
    public static func encode(_ sighting: Sighting) -> String {
        let identity = sighting.identity
        var line = "{\"uuid\":\"\(identity.uuid)\",\"major\":\(identity.major),\"minor\":\(identity.minor)"
        line += ",\"measured_power\":\(sighting.advertisement.measuredPower)"
        // A gateway that publishes no address (docs/gateways.md): null, as `rssi` says none.
        line += ",\"address\":" + (sighting.address.map { JSONText.stringLiteral($0.description) } ?? "null")
        line += ",\"address_random\":\(sighting.addressIsRandom)"
        line += ",\"rssi\":" + (sighting.rssi.map(String.init) ?? "null")
        line += ",\"time\":" + timeText(sighting.time)
        line += sighting.clock == .unix ? ",\"clock\":\"unix\"" : ",\"clock\":\"elapsed\""
        line += ",\"receiver\":" + JSONText.stringLiteral(sighting.receiver) + "}"
        return line
    }

    /// Reads one line. Returns `nil` for a blank line; throws for anything else that is not
    /// a sighting. `defaultReceiver` fills in a missing `receiver` field, `defaultClock` a
    /// missing `clock` (the input's own: `.elapsed` for a file or a pipe, `.unix` for a
    /// broker's messages; docs/sightings.md).
    ///
    /// A telemetry line (docs/sightings.md) is read and checked like a sighting line, handed
    /// to `telemetry`, and gives `nil`.
    public static func decode(
        line: some Collection<UInt8>, lineNumber: Int, source: String, defaultReceiver: String? = nil,
        defaultClock: SightingClock, telemetry: (TelemetryReading) -> Void = { _ in }
    ) throws(SightingStreamError) -> Sighting? {
        var fast = SightingJSONFastDecoder()
        let bytes = Array(line)
        let defaults = Defaults(receiver: defaultReceiver ?? source, clock: defaultClock)
        let decoded = try bytes.withUnsafeBufferPointer { buffer throws(SightingStreamError) in
            try decode(buffer, lineNumber: lineNumber, source: source, defaults: defaults, fast: &fast)
        }
        switch decoded {
        case .sighting(let sighting)?: return sighting
        case .telemetry(let reading)?: telemetry(reading)
        case nil: break
        }
        return nil
    }

    /// What a line leaves out takes from its input: the receiver's name and the clock.
    package struct Defaults: Sendable {
        package var receiver: String
        package var clock: SightingClock

        package init(receiver: String, clock: SightingClock) {
            self.receiver = receiver
            self.clock = clock
        }
    }

    /// A line without `"clock"` in a file or a pipe: the receiver's own elapsed clock.
    /// Never guessed from the number (docs/sightings.md).
    public static let recordingClock = SightingClock.elapsed

    /// What one non-blank line holds: a sighting, or a telemetry reading (`TelemetryJSONLines`).
    package enum Line: Equatable, Sendable {
        case sighting(Sighting)
        case telemetry(TelemetryReading)
    }

    /// One line in place: the fast decoder first, the full reader for whatever it leaves
    /// undecided (every error comes from the full reader). A telemetry line is always
    /// undecided there (its `"telemetry"` member is none of a sighting's), so sighting lines
    /// pay nothing for them.
    static func decode(
        _ line: UnsafeBufferPointer<UInt8>, lineNumber: Int, source: String, defaults: Defaults,
        fast: inout SightingJSONFastDecoder
    ) throws(SightingStreamError) -> Line? {
        switch fast.decode(line, defaults: defaults) {
        case .sighting(let sighting): return .sighting(sighting)
        case .blank: return nil
        case .undecided: return try decodeLine(Array(line), lineNumber: lineNumber, source: source, defaults: defaults)
        }
    }

    /// The full reader alone, without the fast path (tests compare the two); a telemetry
    /// line, read and checked, gives `nil` as a blank line does.
    package static func decodeFully(
        _ bytes: [UInt8], lineNumber: Int, source: String, defaults: Defaults
    ) throws(SightingStreamError) -> Sighting? {
        guard case .sighting(let sighting)? = try decodeLine(bytes, lineNumber: lineNumber, source: source, defaults: defaults) else {
            return nil
        }
        return sighting
    }

    /// The full reader: a sighting or a telemetry line, `nil` for a blank one.
    package static func decodeLine(
        _ bytes: [UInt8], lineNumber: Int, source: String, defaults: Defaults
    ) throws(SightingStreamError) -> Line? {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return nil }
        func failure(_ reason: String, column: Int? = nil) -> SightingStreamError {
            SightingStreamError(source: source, line: lineNumber, column: column, reason: reason)
        }
        guard bytes.count <= maximumLineLength else {
            throw failure("the line is \(bytes.count) bytes long; a sighting takes a few hundred (is this a sighting stream?)")
        }
        let members: [(key: String, value: SightingJSONObjectReader.Value)]
        do {
            members = try SightingJSONObjectReader.members(of: bytes)
        } catch {
            throw failure(error.reason, column: error.column)
        }
        do {
            let fields = SightingFields(members: members)
            if fields.has("telemetry") { return .telemetry(try TelemetryJSONLines.reading(from: fields, defaults: defaults)) }
            return .sighting(try sighting(from: fields, defaults: defaults))
        } catch {
            throw failure(error.message)
        }
    }

    private static func sighting(
        from fields: SightingFields, defaults: Defaults
    ) throws(SightingFields.Problem) -> Sighting {
        let uuidText = try fields.string("uuid")
        let uuid: ProximityUUID
        do {
            uuid = try ProximityUUID(parsing: uuidText)
        } catch {
            throw SightingFields.Problem("\"uuid\": \(error)")
        }
        let major = try fields.integer("major", in: 0...65_535)
        let minor = try fields.integer("minor", in: 0...65_535)
        let measuredPower = try fields.integer("measured_power", in: -128...127)
        let address = try fields.address()
        let addressIsRandom = try fields.optionalBool("address_random") ?? false
        // 127 is HCI's "RSSI not available"; in a sighting that is written null.
        let rssi = try fields.optionalInteger("rssi", in: -128...126, hint: "127 means \"not available\": write null")
        let time = try fields.time()
        let clock = try fields.clock(default: defaults.clock)
        let receiver = try fields.optionalString("receiver") ?? defaults.receiver
        let advertisement = IBeaconAdvertisement(
            identity: BeaconIdentity(uuid: uuid, major: UInt16(major), minor: UInt16(minor)),
            measuredPower: Int8(measuredPower))
        return Sighting(
            advertisement: advertisement, address: address, addressIsRandom: addressIsRandom,
            rssi: rssi, time: time, clock: clock, receiver: receiver)
    }

    /// Seconds with microsecond resolution and no trailing zeros: `12.3456`, `0`, `-1.5`.
    public static func timeText(_ time: Double) -> String {
        // Beyond ±9e12 s (285,000 years) microseconds no longer fit an Int64; JSON still
        // takes Swift's shortest round-trip form.
        guard time.isFinite else { return "null" }
        guard abs(time) < 9e12 else { return "\(time)" }
        let microseconds = Int64((time * 1_000_000).rounded())
        let sign = microseconds < 0 ? "-" : ""
        let magnitude = microseconds.magnitude
        let whole = magnitude / 1_000_000
        let fraction = magnitude % 1_000_000
        guard fraction != 0 else { return sign + String(whole) }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 6 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return sign + String(whole) + "." + digits
    }
}

/// The members of one sighting (or telemetry) object, read field by field with messages
/// that say which field is wrong and what it should be.
struct SightingFields {
    struct Problem: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    private let values: [String: SightingJSONObjectReader.Value]

    init(members: [(key: String, value: SightingJSONObjectReader.Value)]) {
        var values: [String: SightingJSONObjectReader.Value] = [:]
        for member in members { values[member.key] = member.value }
        self.values = values
    }

    func string(_ key: String) throws(Problem) -> String {
        guard let value = try optionalString(key) else { throw Problem("missing field \"\(key)\"") }
        return value
    }

    func optionalString(_ key: String) throws(Problem) -> String? {
        switch values[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?: throw Problem("\"\(key)\" must be a string; got \(Self.kind(other))")
        }
    }

    func integer(_ key: String, in range: ClosedRange<Int>) throws(Problem) -> Int {
        guard let value = try optionalInteger(key, in: range) else {
            throw Problem(values[key] == nil ? "missing field \"\(key)\"" : "\"\(key)\" must be an integer; got null")
        }
        return value
    }

    func optionalInteger(_ key: String, in range: ClosedRange<Int>, hint: String? = nil) throws(Problem) -> Int? {
        switch values[key] {
        case nil, .null?:
            return nil
        case .number(let text)?:
            let expected = "an integer from \(range.lowerBound) to \(range.upperBound)"
            guard let value = Int(text) else { throw Problem("\"\(key)\" must be \(expected); got \(text)") }
            guard range.contains(value) else {
                throw Problem("\"\(key)\" must be \(expected); got \(text)" + (hint.map { " (\($0))" } ?? ""))
            }
            return value
        case let other?:
            throw Problem("\"\(key)\" must be a number; got \(Self.kind(other))")
        }
    }

    func double(_ key: String) throws(Problem) -> Double {
        switch values[key] {
        case nil: throw Problem("missing field \"\(key)\"")
        case .number(let text)?:
            guard let value = Double(text), value.isFinite else {
                throw Problem("\"\(key)\" is out of range: \(text)")
            }
            return value
        case let other?: throw Problem("\"\(key)\" must be a number of seconds; got \(Self.kind(other))")
        }
    }

    func optionalDouble(_ key: String) throws(Problem) -> Double? {
        switch values[key] {
        case nil, .null?: return nil
        case .number(let text)?:
            guard let value = Double(text), value.isFinite else { throw Problem("\"\(key)\" is out of range: \(text)") }
            return value
        case let other?: throw Problem("\"\(key)\" must be a number; got \(Self.kind(other))")
        }
    }

    /// Whether the object has the member `key` (of any value).
    func has(_ key: String) -> Bool {
        values[key] != nil
    }

    /// `"address"`: null or left out, or the empty string earlier versions wrote for it
    /// (docs/sightings.md), is none; anything else must be one.
    func address() throws(Problem) -> BluetoothAddress? {
        guard let addressText = try optionalString("address"), !addressText.isEmpty else { return nil }
        guard let parsed = BluetoothAddress(addressText) else {
            throw Problem("\"address\" must be six hexadecimal pairs separated by colons (AA:BB:CC:DD:EE:FF), or null for none; got \(JSONText.stringLiteral(String(addressText.prefix(40))))")
        }
        return parsed
    }

    /// `"time"`, within `Sighting.acceptedTimes`.
    func time() throws(Problem) -> Double {
        let time = try double("time")
        guard Sighting.acceptedTimes.contains(time) else {
            throw Problem("\"time\" must be seconds from -1e10 to 1e10 (about 317 years either way); got \(time)")
        }
        return time
    }

    /// `"clock"`, or `defaultClock` when the line names none.
    func clock(default defaultClock: SightingClock) throws(Problem) -> SightingClock {
        guard let clockName = try optionalString("clock") else { return defaultClock }
        guard let named = SightingClock(name: clockName) else {
            throw Problem("\"clock\" must be \"elapsed\" (seconds on the receiver's own clock) or \"unix\" (seconds since 1970 UTC); got \(JSONText.stringLiteral(String(clockName.prefix(40))))")
        }
        return named
    }

    func optionalBool(_ key: String) throws(Problem) -> Bool? {
        switch values[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        case let other?: throw Problem("\"\(key)\" must be true or false; got \(Self.kind(other))")
        }
    }

    private static func kind(_ value: SightingJSONObjectReader.Value) -> String {
        switch value {
        case .string(let text): return "the string \(JSONText.stringLiteral(String(text.prefix(40))))"
        case .number(let text): return "the number \(text)"
        case .bool(let value): return "\(value)"
        case .null: return "null"
        case .nested: return "an array or object"
        }
    }
}
