import BeaconCore

/// What one gateway message says of beacons' health beside its sightings: the telemetry
/// readings it carries (beaconctl's telemetry lines, Theengs Gateway's and OpenMQTTGateway's
/// battery fields), and the battery fields it carried with nothing to tie them to (no
/// address, no identity), which are counted, never guessed at.
public struct GatewayTelemetry: Sendable, Equatable {
    public var readings: [TelemetryReading] = []
    /// Messages with a battery field but no address or identity.
    public var withoutBeacon = 0
    /// Why the first of them could not be tied to a beacon.
    public var firstWithoutBeaconReason: String?

    public init() {}

    mutating func noteWithoutBeacon(_ reason: String) {
        withoutBeacon += 1
        if firstWithoutBeaconReason == nil { firstWithoutBeaconReason = reason }
    }
}

/// The battery fields of Theengs Decoder's output, which Theengs Gateway and
/// OpenMQTTGateway publish for the devices it decodes: `volt` in volts (Eddystone-TLM:
/// "temperature/count/volt/time", OpenMQTTGateway's docs/prerequisites/devices.md; KKM and
/// Blue Charm sensor beacons, theengs/decoder src/devices/KKM_K6P_json.h and BC08_json.h:
/// millivolts / 1000), `batt` in percent, `tempc` in °C beside them. Not read from an iBeacon
/// report, whose `volt` is the measured-power byte / 10 (`TheengsPayloadReader`).
enum GatewayBatteryFields {
    /// The reading a message's battery fields make, from `address` heard by `receiver` on
    /// arrival; `nil` when it has no battery field this reader takes (values that cannot
    /// be a battery, such as `batt` above 100, are not taken).
    static func reading(
        _ fields: GatewayPayload, address: BluetoothAddress?, addressIsRandom: Bool, arrivalTime: Double, receiver: String
    ) -> TelemetryReading? {
        let volts = (try? fields.number("volt")) ?? nil
        let millivolts = volts.flatMap { volts -> UInt16? in
            let millivolts = (volts * 1000).rounded()
            return millivolts >= 1 && millivolts <= Double(UInt16.max) ? UInt16(millivolts) : nil
        }
        let percent = ((try? fields.number("batt")) ?? nil).flatMap { value -> UInt8? in
            value >= 0 && value <= 100 ? UInt8(value.rounded()) : nil
        }
        guard millivolts != nil || percent != nil, Sighting.acceptedTimes.contains(arrivalTime) else { return nil }
        let temperature = ((try? fields.number("tempc")) ?? nil).flatMap { TelemetryJSONLines.acceptedTemperatures.contains($0) ? $0 : nil }
        return TelemetryReading(
            address: address, addressIsRandom: addressIsRandom, batteryMillivolts: millivolts, batteryPercent: percent,
            temperature: temperature, time: arrivalTime, clock: .unix, receiver: receiver, source: .gateway)
    }
}
