import BeaconCore
import HCI

/// One AD structure (Core v5.4 Vol 3 Part C 11: `length | type | data`) with what its data
/// means, for the types the Core Specification Supplement (CSS) Part A defines and beacons use.
public struct DecodedADStructure: Hashable, Sendable {
    /// Offset of the length byte from the start of the advertising data.
    public var offset: Int
    public var type: UInt8
    public var data: [UInt8]
    /// The meaning of the data, one line each (flags, a name, UUIDs, a company…); empty
    /// for types shown as hex only.
    public var details: [String]

    public init(offset: Int, type: UInt8, data: [UInt8]) {
        self.offset = offset
        self.type = type
        self.data = data
        self.details = Self.details(type: type, data: data)
    }

    /// `Flags (0x01)`, or `unknown type 0x42`.
    public var typeDescription: String {
        let code = HexText.code(type, digits: 2)
        return ADTypeNames.typeName(type).map { "\($0) (\(code))" } ?? "unknown type \(code)"
    }

    /// `Apple (0x004C)` or `company 0x1234`.
    static func companyText(_ identifier: UInt16) -> String {
        let code = HexText.code(identifier, digits: 4)
        return ADTypeNames.companyName(identifier).map { "\($0) (\(code))" } ?? "company \(code)"
    }

    private static func details(type: UInt8, data: [UInt8]) -> [String] {
        switch type {
        case 0x01:
            guard data.count == 1, let flags = data.first else { return [wrongLength(data, expected: "1 byte")] }
            let names = ADTypeNames.flagNames(flags)
            return [names.isEmpty ? "no flags set" : names.joined(separator: ", ")]
        case 0x02, 0x03, 0x14:
            return uuidList(data, width: 2)
        case 0x04, 0x05, 0x1F:
            return uuidList(data, width: 4)
        case 0x06, 0x07, 0x15:
            return uuidList(data, width: 16)
        case 0x08, 0x09, 0x30:
            return [name(data)]
        case 0x0A:
            guard data.count == 1, let power = data.first else { return [wrongLength(data, expected: "1 byte")] }
            return ["\(Int8(bitPattern: power)) dBm"]
        case 0x16:
            return serviceData(data, width: 2)
        case 0x20:
            return serviceData(data, width: 4)
        case 0x21:
            return serviceData(data, width: 16)
        case 0x19:
            guard data.count == 2 else { return [wrongLength(data, expected: "2 bytes")] }
            return ["appearance \(HexText.code(littleEndian(data), digits: 4))"]
        case 0x1A:
            guard data.count == 2 else { return [wrongLength(data, expected: "2 bytes")] }
            // Units of 0.625 ms (CSS Part A 1.15).
            return ["\(milliseconds(units: littleEndian(data))) ms"]
        case ADStructure.manufacturerSpecificType:
            return manufacturerData(data)
        default:
            return []
        }
    }

    private static func manufacturerData(_ data: [UInt8]) -> [String] {
        guard data.count >= 2 else { return [wrongLength(data, expected: "at least 2 bytes (the company identifier)")] }
        // The company identifier is little-endian (CSS Part A 1.4); an iBeacon's payload is big-endian.
        var lines = ["company: \(companyText(UInt16(littleEndian(Array(data[0..<2])))))"]
        if IBeaconAdvertisement(manufacturerData: data) != nil {
            lines.append("an iBeacon (see below)")
        }
        if UInt16(littleEndian(Array(data[0..<2]))) == KKMTelemetry.companyIdentifier, let telemetry = KKMTelemetry(frame: data[2...]) {
            lines.append(kkmText(telemetry))
        }
        return lines
    }

    private static func uuidList(_ data: [UInt8], width: Int) -> [String] {
        guard !data.isEmpty else { return ["empty list"] }
        guard data.count % width == 0 else {
            return [wrongLength(data, expected: "a multiple of \(width) bytes")]
        }
        return stride(from: 0, to: data.count, by: width).map { start in
            uuidText(Array(data[start..<(start + width)]))
        }
    }

    private static func serviceData(_ data: [UInt8], width: Int) -> [String] {
        guard data.count >= width else { return [wrongLength(data, expected: "at least \(width) bytes (the service UUID)")] }
        let rest = data[width...]
        var lines = ["service \(uuidText(Array(data[0..<width])))", rest.isEmpty ? "no service data" : "data: \(HexText.bytes(rest))"]
        if width == 2, littleEndian(Array(data[0..<2])) == UInt64(EddystoneTelemetry.serviceUUID) {
            if let telemetry = EddystoneTelemetry(frame: rest) {
                lines.append(telemetryText(telemetry))
            } else if let telemetry = KKMTelemetry(frame: rest) {
                lines.append(kkmText(telemetry))
            }
        }
        return lines
    }

    /// `KKM sensor frame: battery 3100 mV, -2.25 °C`, `KKM system frame: battery 84 %, model 7, firmware 5.12`.
    static func kkmText(_ telemetry: KKMTelemetry) -> String {
        switch telemetry {
        case .system(let frame):
            return "KKM system frame: battery \(frame.batteryPercent) %, model \(frame.model), firmware \(frame.firmware)"
        case .sensor(let frame):
            let battery = frame.batteryMillivolts.map { "battery \($0) mV" } ?? "no battery voltage"
            let temperature = frame.temperature.map { "\(NumberText.plain(($0 * 100).rounded() / 100)) °C" } ?? "no temperature"
            return "KKM sensor frame: \(battery), \(temperature)"
        case .malformed(let reason):
            return "KKM frame, unreadable: \(reason)"
        }
    }

    /// `Eddystone-TLM: battery 3000 mV, 22.5 °C, 12345 advertisements, up 16 min 40 s`.
    static func telemetryText(_ telemetry: EddystoneTelemetry) -> String {
        switch telemetry {
        case .plain(let reading):
            let battery = reading.batteryMillivolts.map { "battery \($0) mV" } ?? "battery not measured"
            let temperature = reading.temperature.map { "\(NumberText.plain(($0 * 100).rounded() / 100)) °C" } ?? "temperature not measured"
            return "Eddystone-TLM: \(battery), \(temperature), \(reading.advertisingCount) advertisements, up \(uptimeText(reading.uptimeTenths))"
        case .encrypted:
            return "Eddystone-TLM, encrypted: readable only with the beacon's identity key"
        case .malformed(let reason):
            return "Eddystone-TLM, unreadable: \(reason)"
        }
    }

    /// `3 d 4 h 5 min 6.7 s`, largest unit first, zero units left out.
    private static func uptimeText(_ tenths: UInt32) -> String {
        let seconds = Int(tenths / 10)
        let parts: [(Int, String)] = [(seconds / 86_400, "d"), (seconds / 3600 % 24, "h"), (seconds / 60 % 60, "min")]
        var text = parts.filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        let rest = Double(seconds % 60) + Double(tenths % 10) / 10
        if rest > 0 || text.isEmpty { text.append("\(NumberText.plain(rest)) s") }
        return text.joined(separator: " ")
    }

    /// A service UUID sent least significant byte first (CSS Part A 1.1), written the usual
    /// way: `0xFEAA (Eddystone (Google))`, `0x0000FEAA`, or 8-4-4-4-12 for 128 bits.
    private static func uuidText(_ littleEndianBytes: [UInt8]) -> String {
        let bytes = Array(littleEndianBytes.reversed())
        switch bytes.count {
        case 2:
            let value = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
            let code = HexText.code(value, digits: 4)
            return ADTypeNames.serviceName(value).map { "\(code) (\($0))" } ?? code
        case 16:
            return ProximityUUID(bytes: bytes)?.description ?? HexText.bytes(bytes)
        default:
            return "0x" + HexText.bytes(bytes, separator: "")
        }
    }

    /// A local name: UTF-8, shown quoted with control characters escaped; hex when not UTF-8.
    private static func name(_ data: [UInt8]) -> String {
        guard let text = String(validating: data, as: UTF8.self) else {
            return "not valid UTF-8: \(HexText.bytes(data))"
        }
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value):
                quoted += scalar.escaped(asASCII: true)
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    private static func wrongLength(_ data: [UInt8], expected: String) -> String {
        "malformed: \(NumberText.count(data.count, "byte")) of data where \(expected) belong"
    }

    private static func littleEndian(_ bytes: [UInt8]) -> UInt64 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// `152.5`: units of 0.625 ms as milliseconds, without trailing zeros.
    private static func milliseconds(units: UInt64) -> String {
        let microseconds = units * 625
        let whole = microseconds / 1000
        let fraction = microseconds % 1000
        guard fraction != 0 else { return "\(whole)" }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 3 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(whole).\(digits)"
    }
}
