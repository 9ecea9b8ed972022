import BeaconCore

/// ESPresense (ESP32 boards, one per room): `BASE/devices/ID/ROOM`, one JSON object per
/// device and report; `BASE/rooms/ROOM/status` retained `online`, `offline` as last will.
///
/// Read from ESPresense's `src/main.cpp` (`reportDevice`, the topics built in `setup`) and
/// `src/BleFingerprint.cpp` (`fill`, `report`, `getMac`): an iBeacon's `id` is
/// `iBeacon:UUID-MAJOR-MINOR` (UUID lower case with dashes), `mac` is 12 lower-case hex
/// digits, `rssi@1m` is the advertised measured power unless the user calibrated the device
/// in ESPresense, `rssi` is the raw RSSI of the last advertisement in v3 and a filtered
/// median with two decimals in v4. A beacon is reported at most once per `skip_ms` (5 s by
/// default) unless it moves, and not at all beyond `max_distance` (16 m by default): the
/// cadence of its reports says nothing of the beacon's interval. Its `int` field, an
/// estimate of that interval that runs long, is not read (docs/gateways.md).
public enum ESPresenseGatewayDecoder: GatewayDecoder {
    public static func topicFilters(base: String) -> [String] {
        ["\(base)/devices/+/+", "\(base)/rooms/+/status"]
    }

    public static var defaultBase: String { "espresense" }
    public static var reportsEveryAdvertisement: Bool { false }
    /// `skip_ms`: a beacon that does not move is reported once every 5 s.
    public static var reportPeriod: Double? { 5 }

    public static func read(
        topic: String, payload: [UInt8], base: String, arrivalTime: Double, telemetry _: inout GatewayTelemetry
    ) -> GatewayReading {
        guard let levels = GatewaySighting.levels(of: topic, under: base) else { return .ignored }
        if levels.count == 3, levels[0] == "rooms", levels[2] == "status", !levels[1].isEmpty {
            let receiver = GatewaySighting.receiver(levels[1], kind: .espresense)
            guard let online = GatewaySighting.status(payload, online: ["online"], offline: ["offline"]) else {
                return .malformed("status \(GatewaySighting.quoted(payload)) of \(receiver) is neither online nor offline")
            }
            return .receiverStatus(receiver: receiver, online: online)
        }
        guard levels.count == 3, levels[0] == "devices", !levels[2].isEmpty else { return .ignored }
        // Only iBeacons carry an identity to audit; phones, tags and aliased devices do not.
        guard levels[1].hasPrefix("iBeacon:") else { return .ignored }
        let receiver = GatewaySighting.receiver(levels[2], kind: .espresense)
        do throws(GatewayPayload.Problem) {
            let fields = try GatewayPayload(payload)
            guard let id = try fields.string("id") else { throw .init("no \"id\"") }
            guard id.hasPrefix("iBeacon:") else {
                return .withoutIdentity("\(receiver) reported \(JSONText.stringLiteral(String(id.prefix(80)))) for an iBeacon: an alias hides its UUID, major and minor (remove the alias in ESPresense to audit it)")
            }
            guard let identity = GatewaySpelling.identity(dashedID: id.dropFirst("iBeacon:".count)) else {
                throw .init("\"id\" \(JSONText.stringLiteral(String(id.prefix(80)))) is not iBeacon:UUID-MAJOR-MINOR")
            }
            guard let power = try fields.integer("rssi@1m", in: -128...127) else {
                throw .init("no \"rssi@1m\" (the measured power)")
            }
            let rssi = try fields.number("rssi").map { value throws(GatewayPayload.Problem) in
                guard let rssi = GatewaySpelling.rssi(value) else { throw .init("\"rssi\" \(NumberText.plain(value)) is not an RSSI in dBm") }
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
