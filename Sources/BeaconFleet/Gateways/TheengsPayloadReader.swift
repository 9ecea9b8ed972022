import BeaconCore

/// The layout Theengs Gateway and OpenMQTTGateway share: `BASE/GATEWAY/BTtoMQTT/ADDRESS`
/// (the address without colons), one JSON object per advertisement as Theengs Decoder
/// decodes it, and `BASE/GATEWAY/LWT` retained `online`, `offline` as last will. The
/// receiver is the GATEWAY level (its configured name).
///
/// Theengs Decoder's iBeacon model (`src/devices/iBeacon_json.h`) writes `uuid` as 32
/// lower-case hex digits, `major` and `minor` through `value_from_hex_data` with its default
/// `canBeNegative` (a signed 16-bit reading: 40000 arrives as -25536), and the
/// measured-power byte as `txpower` (signed) only when that byte's top bit is set; when it is
/// clear the model calls the byte a battery voltage and writes `volt` = byte / 10. Such a
/// beacon really advertises a positive measured power (0...127), so `volt` × 10 is read back
/// as that byte: the audit then sees what the beacon advertises (and calls it wrong-power
/// against any real calibration) instead of missing the beacon or guessing.
enum TheengsPayloadReader {
    static func topicFilters(base: String) -> [String] {
        ["\(base)/+/BTtoMQTT/+", "\(base)/+/LWT"]
    }

    static func read(
        topic: String, payload: [UInt8], base: String, arrivalTime: Double, kind: GatewayKind,
        telemetry: inout GatewayTelemetry
    ) -> GatewayReading {
        guard let levels = GatewaySighting.levels(of: topic, under: base), levels.count >= 2,
              !levels[0].isEmpty
        else { return .ignored }
        let receiver = GatewaySighting.receiver(levels[0], kind: kind)
        if levels.count == 2, levels[1] == "LWT" {
            guard let online = GatewaySighting.status(payload, online: ["online"], offline: ["offline"]) else {
                return .malformed("last will \(GatewaySighting.quoted(payload)) of \(receiver) is neither online nor offline")
            }
            return .receiverStatus(receiver: receiver, online: online)
        }
        guard levels.count == 3, levels[1] == "BTtoMQTT" else { return .ignored }
        do throws(GatewayPayload.Problem) {
            let fields = try GatewayPayload(payload)
            // The advertisement itself, when the gateway publishes it (`pubadvdata`, or
            // OpenMQTTGateway without its decoder): the most faithful reading.
            let raw = try fields.string("manufacturerdata").flatMap(GatewaySpelling.iBeacon(manufacturerDataHex:))
            let isIBeacon = try fields.string("model_id") == "IBEACON"
            guard raw != nil || isIBeacon else {
                // Another device: its battery fields, when it has some, are telemetry.
                let address = (try? fields.has("mac") ? fields.address("mac") : fields.address("id")) ?? nil
                let isRandom = ((try? fields.integer("mac_type", in: 0...255)) ?? nil).map { $0 == 1 } ?? false
                if let reading = GatewayBatteryFields.reading(
                    fields, address: address, addressIsRandom: isRandom, arrivalTime: arrivalTime, receiver: receiver) {
                    if address == nil {
                        telemetry.noteWithoutBeacon("\(receiver) reported a battery without the device's address (\"id\" or \"mac\")")
                    } else {
                        telemetry.readings.append(reading)
                    }
                }
                return .ignored
            }
            let rssi = try fields.integer("rssi", in: -128...127).map { value throws(GatewayPayload.Problem) in
                guard let rssi = GatewaySpelling.rssi(Double(value)) else { throw .init("\"rssi\" \(value) is not an RSSI in dBm") }
                return rssi
            }
            // OpenMQTTGateway writes `mac`, Theengs Gateway `id`.
            let address = try fields.has("mac") ? fields.address("mac") : fields.address("id")
            let isRandom = try fields.integer("mac_type", in: 0...255).map { $0 == 1 } ?? false
            let advertisement: IBeaconAdvertisement
            if let raw {
                advertisement = raw
            } else {
                guard let uuidText = try fields.string("uuid") else {
                    return .withoutIdentity("\(receiver) reported an iBeacon without its \"uuid\"")
                }
                guard let uuid = GatewaySpelling.uuid(Substring(uuidText)) else {
                    throw .init("\"uuid\" \(JSONText.stringLiteral(String(uuidText.prefix(40)))) is not 32 hexadecimal digits")
                }
                guard fields.has("major"), fields.has("minor") else {
                    return .withoutIdentity("\(receiver) reported iBeacon \(uuid) without its major and minor (a gateway set to publish only the UUID: let it publish the decoded iBeacon)")
                }
                let major = try identityPart("major", fields)
                let minor = try identityPart("minor", fields)
                advertisement = IBeaconAdvertisement(
                    identity: BeaconIdentity(uuid: uuid, major: major, minor: minor),
                    measuredPower: try measuredPower(fields))
            }
            return GatewaySighting.make(
                identity: advertisement.identity, measuredPower: advertisement.measuredPower, address: address,
                addressIsRandom: isRandom, rssi: rssi, arrivalTime: arrivalTime, receiver: receiver)
        } catch {
            return .malformed("\(receiver): \(error.reason)")
        }
    }

    private static func identityPart(_ key: String, _ fields: GatewayPayload) throws(GatewayPayload.Problem) -> UInt16 {
        guard let value = try fields.integer(key, in: -32768...65535),
              let part = GatewaySpelling.identityPart(value, signed: true)
        else { throw .init("\"\(key)\" is missing") }
        return part
    }

    /// `volt` first: when the decoder wrote it, any `txpower` beside it is the
    /// advertisement's own TX Power Level AD structure (OpenMQTTGateway adds that), not the
    /// iBeacon's measured power.
    private static func measuredPower(_ fields: GatewayPayload) throws(GatewayPayload.Problem) -> Int8 {
        if let volt = try fields.number("volt") {
            let byte = (volt * 10).rounded()
            guard byte >= 0, byte <= 127, abs(volt * 10 - byte) < 0.01 else {
                throw .init("\"volt\" \(NumberText.plain(volt)) is not a measured-power byte divided by 10 (0 to 12.7)")
            }
            return Int8(byte)
        }
        guard let power = try fields.integer("txpower", in: -128...127) else {
            throw .init("neither \"txpower\" nor \"volt\" (the measured power)")
        }
        return Int8(power)
    }
}

/// Theengs Gateway (a Python service on a Pi or a PC): read from `TheengsGateway/ble_gateway.py`
/// (`detection_callback`, `decode_advertisement`, `publish_json`) and `config.py` (topics
/// `home/TheengsGateway/BTtoMQTT`, `home/TheengsGateway/LWT`; scans of 5 s every 10 s).
/// `id` is the address as BlueZ spells it (`C4:5B:BE:00:00:01`). Scanning half the time, it
/// samples: the cadence of its reports is not the beacon's interval.
public enum TheengsGatewayDecoder: GatewayDecoder {
    public static func topicFilters(base: String) -> [String] { TheengsPayloadReader.topicFilters(base: base) }
    public static var defaultBase: String { "home" }
    public static var reportsEveryAdvertisement: Bool { false }
    /// A scan of 5 s every 10 s.
    public static var reportPeriod: Double? { 10 }

    /// Its iBeacon reports, and the battery fields of the other devices it decodes (`GatewayBatteryFields`).
    public static func read(
        topic: String, payload: [UInt8], base: String, arrivalTime: Double, telemetry: inout GatewayTelemetry
    ) -> GatewayReading {
        TheengsPayloadReader.read(
            topic: topic, payload: payload, base: base, arrivalTime: arrivalTime, kind: .theengs, telemetry: &telemetry)
    }
}

/// OpenMQTTGateway (ESP32 firmware): read from `main/ZgatewayBT.cpp` (`procBLETask`,
/// `PublishDeviceData`), `main/main.cpp` (`buildTopicFromId`) and `User_config.h`
/// (`home/` + `OpenMQTTGateway`, `/LWT`). `id` is NimBLE's lower-case `c4:5b:be:00:00:01`;
/// `txpower` may be the TX Power Level AD; devices weaker than `minrssi` are dropped; and it
/// scans for `scanduration` then waits `interval` (55.5 s by default), so a beacon is
/// reported about once per scan cycle, far less often than it advertises.
public enum OpenMQTTGatewayDecoder: GatewayDecoder {
    public static func topicFilters(base: String) -> [String] { TheengsPayloadReader.topicFilters(base: base) }
    public static var defaultBase: String { "home" }
    public static var reportsEveryAdvertisement: Bool { false }
    /// The wait between scans alone (`interval`, 55.5 s); each scan adds its duration.
    public static var reportPeriod: Double? { 55.5 }

    /// Its iBeacon reports, and the battery fields of the other devices it decodes (`GatewayBatteryFields`).
    public static func read(
        topic: String, payload: [UInt8], base: String, arrivalTime: Double, telemetry: inout GatewayTelemetry
    ) -> GatewayReading {
        TheengsPayloadReader.read(
            topic: topic, payload: payload, base: base, arrivalTime: arrivalTime, kind: .openMQTTGateway, telemetry: &telemetry)
    }
}
