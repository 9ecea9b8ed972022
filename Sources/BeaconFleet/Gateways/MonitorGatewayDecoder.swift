import BeaconCore

/// andrewjfreyer/monitor (a shell service on a Pi): `BASE/IDENTITY/BRANCH` (`monitor` by
/// default; IDENTITY is the publisher identity, the host name unless set; BRANCH the
/// device's id or alias), or `BASE/IDENTITY` in single-topic mode; `BASE/IDENTITY/status`
/// says `online`, and `offline` as last will.
///
/// Read from `support/btle` (`btle_packet_processor`), `monitor.sh` (the `BEAC` branch and
/// its `publish_presence_message`) and `support/mqtt` (`json_format`, every value a JSON
/// string): an iBeacon's message has `type` `APPLE_IBEACON`, `id` `UUID-MAJOR-MINOR` with
/// the UUID upper case and dashed, `mac` `C4:5B:BE:00:00:01`, `rssi` and `power` as strings.
/// `power` is the measured-power byte minus 256 whatever its top bit, so a byte of 0x3B
/// arrives as -197: values from -256 to -129 are mapped back by adding 256. Monitor
/// publishes a beacon when it arrives or its state changes, not per advertisement, and only
/// frames laid out as flags then the iBeacon structure. Its `timestamp` is when it
/// published, to the second; arrival time is used instead.
public enum MonitorGatewayDecoder: GatewayDecoder {
    public static func topicFilters(base: String) -> [String] { ["\(base)/+/+", "\(base)/+"] }
    public static var defaultBase: String { "monitor" }
    public static var reportsEveryAdvertisement: Bool { false }

    public static func read(
        topic: String, payload: [UInt8], base: String, arrivalTime: Double, telemetry _: inout GatewayTelemetry
    ) -> GatewayReading {
        guard let levels = GatewaySighting.levels(of: topic, under: base), (1...2).contains(levels.count),
              !levels[0].isEmpty
        else { return .ignored }
        let receiver = GatewaySighting.receiver(levels[0], kind: .monitor)
        if levels.count == 2, levels[1] == "status" {
            guard let online = GatewaySighting.status(payload, online: ["online"], offline: ["offline"]) else {
                return .malformed("status \(GatewaySighting.quoted(payload)) of \(receiver) is neither online nor offline")
            }
            return .receiverStatus(receiver: receiver, online: online)
        }
        // Monitor also talks on these topics in plain words (scan requests, echoes) and
        // reports other devices: only its iBeacon messages are read.
        guard payload.first == UInt8(ascii: "{"), let fields = try? GatewayPayload(payload),
              (try? fields.string("type")) == "APPLE_IBEACON"
        else { return .ignored }
        do throws(GatewayPayload.Problem) {
            guard let id = try fields.string("id") else { throw .init("no \"id\"") }
            guard let identity = GatewaySpelling.identity(dashedID: Substring(id)) else {
                throw .init("\"id\" \(JSONText.stringLiteral(String(id.prefix(80)))) is not UUID-MAJOR-MINOR")
            }
            guard var power = try fields.integer("power", in: -256...127) else { throw .init("no \"power\" (the measured power)") }
            if power < -128 { power += 256 }
            let rssi = try fields.integer("rssi", in: -256...127).map { value throws(GatewayPayload.Problem) in
                guard let rssi = GatewaySpelling.rssi(Double(value)) else { throw .init("\"rssi\" \(value) is not an RSSI in dBm") }
                return rssi
            }
            let address = try fields.address("mac")
            return GatewaySighting.make(
                identity: identity, measuredPower: Int8(power), address: address, rssi: rssi,
                arrivalTime: arrivalTime, receiver: receiver)
        } catch {
            return .malformed("\(receiver): \(error.reason)")
        }
    }
}
