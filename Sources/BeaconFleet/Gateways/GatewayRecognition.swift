/// A guess at the gateway kind from one message, for a broker input given no `--gateway`:
/// welcome on top of naming the kind, never instead (a guess from one message can be
/// wrong, and the kind decides what is judged).
extension GatewayKind {
    /// The kind whose sighting messages look like this one, or `nil` when none does
    /// (status words, other devices, anything unreadable).
    public static func recognise(topic: String, payload: [UInt8]) -> GatewayKind? {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        if levels.count >= 2, levels[levels.count - 2] == "sightings", payload.first == UInt8(ascii: "{") {
            return .beaconctl
        }
        guard let fields = try? GatewayPayload(payload) else { return nil }
        if levels.count >= 3, levels[levels.count - 3] == "devices", levels[levels.count - 2].hasPrefix("iBeacon:"),
           fields.has("rssi@1m") {
            return .espresense
        }
        if levels.count >= 3, levels[levels.count - 2] == "BTtoMQTT", let id = try? fields.string("id") {
            // BlueZ (Theengs Gateway on Linux) spells addresses in upper case, NimBLE
            // (OpenMQTTGateway on an ESP32) in lower case.
            if id.contains(":") { return id.utf8.contains { (0x61...0x66).contains($0) } ? .openMQTTGateway : .theengs }
            return nil
        }
        if (try? fields.string("type")) == "APPLE_IBEACON", fields.has("power") { return .monitor }
        if fields.has("id"), fields.has("distance"), fields.has("major") {
            // ESP32-mqtt-room writes the measured power; room-assistant does not.
            return fields.has("txPower") ? .mqttRoom : .roomAssistant
        }
        return nil
    }
}
