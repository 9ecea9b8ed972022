import BeaconCore

/// The JSON-lines form of a `TelemetryReading` (docs/sightings.md, "Telemetry lines"): one
/// object per line, beside sighting lines in the same stream, told from them by its first
/// member, `"telemetry"`, the version of the line's layout (1). Fields in this order:
///
///     {"telemetry":1,"source":"eddystone-tlm","address":"C4:5B:BE:12:34:56","address_random":false,
///      "battery_mv":2987,"battery_percent":null,"temperature":21.5,"time":12.345678,"clock":"elapsed",
///      "receiver":"hci0"}
///
/// with `"uuid"`, `"major"` and `"minor"` after `"source"` when the reading came with an
/// identity. Readers that predate telemetry lines refuse them (a line that is not a
/// sighting is an error), so writers emit them only when asked (`--telemetry`).
public enum TelemetryJSONLines {
    /// The layout version this reader reads and writers write.
    public static let version = 1

    /// One line of JSON, without the newline.
    public static func encode(_ reading: TelemetryReading) -> String {
        var line = "{\"telemetry\":\(version),\"source\":\"\(reading.source.rawValue)\""
        if let identity = reading.identity {
            line += ",\"uuid\":\"\(identity.uuid)\",\"major\":\(identity.major),\"minor\":\(identity.minor)"
        }
        line += ",\"address\":" + (reading.address.map { JSONText.stringLiteral($0.description) } ?? "null")
        line += ",\"address_random\":\(reading.addressIsRandom)"
        line += ",\"battery_mv\":" + (reading.batteryMillivolts.map(String.init) ?? "null")
        line += ",\"battery_percent\":" + (reading.batteryPercent.map(String.init) ?? "null")
        line += ",\"temperature\":" + (reading.temperature.flatMap(numberText) ?? "null")
        line += ",\"time\":" + SightingJSONLines.timeText(reading.time)
        line += ",\"clock\":\"\(reading.clock.name)\""
        line += ",\"receiver\":" + JSONText.stringLiteral(reading.receiver) + "}"
        return line
    }

    /// A finite number in Swift's shortest round-trip form, which JSON reads.
    private static func numberText(_ value: Double) -> String? {
        value.isFinite ? "\(value)" : nil
    }

    /// Temperatures a reader takes, °C: wider than any beacon measures (a KKM sensor
    /// frame's extended range included), narrow enough to catch a unit mix-up.
    static let acceptedTemperatures: ClosedRange<Double> = -100...400

    /// The reading of a line whose members were read (`"telemetry"` among them).
    static func reading(
        from fields: SightingFields, defaults: SightingJSONLines.Defaults
    ) throws(SightingFields.Problem) -> TelemetryReading {
        let version = try fields.integer("telemetry", in: 0...Int(Int32.max))
        guard version == Self.version else {
            throw SightingFields.Problem("a telemetry line of version \(version); this beaconctl reads version \(Self.version) (a newer beaconctl wrote it: upgrade this one)")
        }
        let sourceName = try fields.string("source")
        guard let source = TelemetrySource(rawValue: sourceName) else {
            let known = TelemetrySource.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw SightingFields.Problem("\"source\" must be one of \(known); got \(JSONText.stringLiteral(String(sourceName.prefix(40))))")
        }
        var identity: BeaconIdentity?
        if let uuidText = try fields.optionalString("uuid") {
            let uuid: ProximityUUID
            do {
                uuid = try ProximityUUID(parsing: uuidText)
            } catch {
                throw SightingFields.Problem("\"uuid\": \(error)")
            }
            identity = BeaconIdentity(
                uuid: uuid, major: UInt16(try fields.integer("major", in: 0...65_535)),
                minor: UInt16(try fields.integer("minor", in: 0...65_535)))
        }
        let address = try fields.address()
        guard address != nil || identity != nil else {
            throw SightingFields.Problem("a telemetry line must name its beacon: \"address\", or \"uuid\", \"major\" and \"minor\"")
        }
        let millivolts = try fields.optionalInteger("battery_mv", in: 1...65_535, hint: "a battery not measured is null")
        let percent = try fields.optionalInteger("battery_percent", in: 0...100)
        let temperature = try fields.optionalDouble("temperature")
        if let temperature, !acceptedTemperatures.contains(temperature) {
            throw SightingFields.Problem("\"temperature\" must be °C from -100 to 400; got \(temperature)")
        }
        guard millivolts != nil || percent != nil || temperature != nil else {
            throw SightingFields.Problem("a telemetry line must carry \"battery_mv\", \"battery_percent\" or \"temperature\"")
        }
        let time = try fields.time()
        return TelemetryReading(
            address: address, addressIsRandom: try fields.optionalBool("address_random") ?? false, identity: identity,
            batteryMillivolts: millivolts.map(UInt16.init), batteryPercent: percent.map(UInt8.init), temperature: temperature,
            time: time, clock: try fields.clock(default: defaults.clock),
            receiver: try fields.optionalString("receiver") ?? defaults.receiver, source: source)
    }
}
