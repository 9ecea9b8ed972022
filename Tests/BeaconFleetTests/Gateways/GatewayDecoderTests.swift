import BeaconCore
import Testing

@testable import BeaconFleet

@Suite("Gateway decoders")
struct GatewayDecoderTests {
    typealias F = GatewayFixtures
    static let arrival = 1_790_000_000.25
    static let uuid = ProximityUUID(bytes: [0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0])!

    static func read(_ kind: GatewayKind, _ message: F.Message, base: String? = nil) -> GatewayReading {
        kind.decoder.read(topic: message.topic, payload: message.bytes, base: base ?? kind.decoder.defaultBase, arrivalTime: arrival)
    }

    static func sighting(_ kind: GatewayKind, _ message: F.Message) throws -> Sighting {
        let reading = read(kind, message)
        guard case .sightings(let sightings) = reading, sightings.count == 1 else {
            Issue.record("expected one sighting, got \(reading)")
            throw CancellationError()
        }
        return sightings[0]
    }

    static func expect(
        _ sighting: Sighting, major: UInt16, minor: UInt16, power: Int8, rssi: Int?, address: String, receiver: String
    ) {
        #expect(sighting.identity == BeaconIdentity(uuid: uuid, major: major, minor: minor))
        #expect(sighting.advertisement.measuredPower == power)
        #expect(sighting.rssi == rssi)
        // "" for a gateway that publishes no address, as reports write it.
        #expect(BluetoothAddress.text(sighting.address) == address)
        #expect(sighting.receiver == receiver)
        #expect(sighting.time == arrival)
        #expect(sighting.clock == .unix, "a gateway's sighting is stamped with its arrival on the wall clock")
    }

    @Test("beaconctl's lines on a broker: the clock each says, Unix time when it says none, whatever the number")
    func beaconctlClocks() throws {
        let line = #"{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":2,"measured_power":-59,"address":"C4:5B:BE:00:00:01","rssi":-60,"time":5"#
        let payload = [line + #","clock":"elapsed","receiver":"a"}"#, line + #","clock":"unix","receiver":"b"}"#, line + #","receiver":"c"}"#]
            .joined(separator: "\n")
        let reading = BeaconCtlGatewayDecoder.read(topic: "beaconctl/sightings/x", payload: Array(payload.utf8), base: "beaconctl", arrivalTime: Self.arrival)
        guard case .sightings(let sightings) = reading else {
            Issue.record("\(reading)")
            return
        }
        #expect(sightings.map(\.clock) == [.elapsed, .unix, .unix])
        #expect(sightings.map(\.time) == [5, 5, 5], "a line's own time, not the arrival")
    }

    @Test("a batch of 64 lines with one corrupt line: the 63 good ones are kept, the bad one counted with its reason", arguments: [
        #""rssi":1e400"#, #""rssi":NaN"#, #""rssi":"loud""#,
    ])
    func oneBadLineInABatch(badRSSI: String) throws {
        let good = { (minor: Int) in
            #"{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":"# + "\(minor)"
                + #","measured_power":-59,"address":"C4:5B:BE:00:00:01","rssi":-60,"time":1790000000.5,"receiver":"box"}"#
        }
        var lines = (1...64).map(good)
        lines[40] = lines[40].replacing(#""rssi":-60"#, with: badRSSI)
        let reading = BeaconCtlGatewayDecoder.readMarkingEvidence(
            topic: "beaconctl/sightings/box", payload: Array(lines.joined(separator: "\n").utf8), base: "beaconctl", arrivalTime: Self.arrival)
        guard case .partlyReadable(let sightings, let unreadable, let reason) = reading else {
            Issue.record("expected a partly readable batch, got \(reading)")
            return
        }
        #expect(sightings.count == 63)
        #expect(!sightings.contains { $0.identity.minor == 41 })
        #expect(unreadable == 1)
        #expect(reason.contains("line 41"), "\(reason)")
        // Every line bad: the message is unreadable as a whole.
        let allBad = BeaconCtlGatewayDecoder.read(
            topic: "beaconctl/sightings/box", payload: Array(lines[40].utf8), base: "beaconctl", arrivalTime: Self.arrival)
        #expect(Self.isMalformed(allBad))
    }

    static func isMalformed(_ reading: GatewayReading) -> Bool {
        if case .malformed = reading { return true }
        return false
    }

    static func isWithoutIdentity(_ reading: GatewayReading) -> Bool {
        if case .withoutIdentity = reading { return true }
        return false
    }

    @Test("every kind has a decoder, a default base and the flags the docs give")
    func kinds() {
        #expect(GatewayKind.allCases.map(\.rawValue) == ["beaconctl", "espresense", "theengs", "openmqttgateway", "mqtt-room", "room-assistant", "monitor"])
        for kind in GatewayKind.allCases {
            #expect(!kind.decoder.topicFilters(base: kind.decoder.defaultBase).isEmpty)
            // Only beaconctl's own boxes publish every advertisement.
            #expect(kind.decoder.reportsEveryAdvertisement == (kind == .beaconctl))
            #expect(kind.decoder.carriesMeasuredPower == (kind != .roomAssistant))
        }
        #expect(GatewayKind.espresense.decoder.defaultBase == "espresense")
        #expect(GatewayKind.theengs.decoder.topicFilters(base: "home") == ["home/+/BTtoMQTT/+", "home/+/LWT"])
        #expect(GatewayKind.mqttRoom.decoder.topicFilters(base: "room_presence") == ["room_presence/+", "presence_nodes/+"])
    }

    @Test("ESPresense v4 and v3: identity from the iBeacon: id, rssi@1m, filtered RSSI rounded, 12-digit mac, room")
    func espresense() throws {
        Self.expect(try Self.sighting(.espresense, F.espresenseV4), major: 40000, minor: 1, power: -59, rssi: -72,
                    address: "C4:5B:BE:00:00:01", receiver: "living_room (espresense)")
        Self.expect(try Self.sighting(.espresense, F.espresenseV3), major: 1, minor: 2, power: -59, rssi: -68,
                    address: "C4:5B:BE:00:00:02", receiver: "office (espresense)")
        #expect(Self.read(.espresense, F.espresensePhone) == .ignored)
        #expect(Self.read(.espresense, F.espresenseOnline) == .receiverStatus(receiver: "living_room (espresense)", online: true))
        #expect(Self.read(.espresense, F.espresenseOffline) == .receiverStatus(receiver: "living_room (espresense)", online: false))
        // Another base: the user's own channel.
        var moved = F.espresenseV4
        moved.topic = "shop1/" + moved.topic
        #expect(Self.read(.espresense, moved, base: "shop1/espresense") != .ignored)
        #expect(Self.read(.espresense, F.espresenseV4, base: "other") == .ignored)
    }

    @Test("Theengs Gateway: signed major mapped back, volt read as the measured-power byte, manufacturer data preferred")
    func theengs() throws {
        Self.expect(try Self.sighting(.theengs, F.theengsSignedMajor), major: 40000, minor: 7, power: -59, rssi: -70,
                    address: "C4:5B:BE:00:00:03", receiver: "TheengsGateway (theengs)")
        // 0x3B: the beacon advertises +59, and that is what the audit sees.
        Self.expect(try Self.sighting(.theengs, F.theengsVolt), major: 1, minor: 2, power: 59, rssi: -75,
                    address: "C4:5B:BE:00:00:08", receiver: "TheengsGateway (theengs)")
        Self.expect(try Self.sighting(.theengs, F.theengsAdvData), major: 40000, minor: 1, power: -59, rssi: -71,
                    address: "C4:5B:BE:00:00:03", receiver: "TheengsGateway (theengs)")
        #expect(Self.read(.theengs, F.theengsSensor) == .ignored)
        #expect(Self.read(.theengs, F.theengsOnline) == .receiverStatus(receiver: "TheengsGateway (theengs)", online: true))
    }

    @Test("OpenMQTTGateway: lower-case colon address, signed major and minor, volt beside the AD's txpower, UUID only")
    func openMQTTGateway() throws {
        Self.expect(try Self.sighting(.openMQTTGateway, F.omgSignedMajor), major: 40000, minor: 65535, power: -59, rssi: -74,
                    address: "C4:5B:BE:00:00:04", receiver: "OpenMQTTGateway (openmqttgateway)")
        Self.expect(try Self.sighting(.openMQTTGateway, F.omgVoltBesideTxPower), major: 2, minor: 3, power: 59, rssi: -80,
                    address: "C4:5B:BE:00:00:05", receiver: "OpenMQTTGateway (openmqttgateway)")
        #expect(Self.isWithoutIdentity(Self.read(.openMQTTGateway, F.omgUUIDOnly)))
        #expect(Self.read(.openMQTTGateway, F.omgOffline) == .receiverStatus(receiver: "OpenMQTTGateway (openmqttgateway)", online: false))
    }

    @Test("mqtt-room (ESP32-mqtt-room): 32-digit UUID, txPower, the room from the topic; other devices passed over")
    func mqttRoom() throws {
        Self.expect(try Self.sighting(.mqttRoom, F.mqttRoomBeacon), major: 40000, minor: 1, power: -59, rssi: -66,
                    address: "", receiver: "kitchen (mqtt-room)")
        #expect(Self.read(.mqttRoom, F.mqttRoomOther) == .ignored)
        #expect(Self.read(.mqttRoom, F.mqttRoomConnected) == .receiverStatus(receiver: "kitchen (mqtt-room)", online: true))
        // The UUID but no major and minor: counted, not guessed.
        let bare = F.Message(topic: "room_presence/kitchen", payload: #"{"id":"x","uuid":"e2c56db5dffb48d2b060d0f5a71096e0","rssi":-60,"distance":1}"#)
        #expect(Self.isWithoutIdentity(Self.read(.mqttRoom, bare)))
    }

    @Test("room-assistant: no measured power (the placeholder), no identity without its iBeacon parsing")
    func roomAssistant() throws {
        Self.expect(try Self.sighting(.roomAssistant, F.roomAssistantBeacon), major: 1, minor: 2,
                    power: MQTTRoomGatewayDecoder.unknownMeasuredPower, rssi: -70, address: "", receiver: "hallway (room-assistant)")
        #expect(Self.read(.roomAssistant, F.roomAssistantNoIBeacon) == .ignored)
        #expect(Self.read(.roomAssistant, F.mqttRoomConnected) == .ignored)
        let bare = F.Message(topic: "room_presence/hallway", payload: #"{"id":"e2c56db5dffb48d2b060d0f5a71096e0","rssi":-60,"uuid":"e2c56db5dffb48d2b060d0f5a71096e0","distance":1}"#)
        #expect(Self.isWithoutIdentity(Self.read(.roomAssistant, bare)))
    }

    @Test("monitor: upper-case dashed UUID in the id, strings for numbers, power wrapped by 256 mapped back")
    func monitor() throws {
        Self.expect(try Self.sighting(.monitor, F.monitorBeacon), major: 40000, minor: 1, power: -59, rssi: -67,
                    address: "C4:5B:BE:00:00:07", receiver: "pi-lobby (monitor)")
        Self.expect(try Self.sighting(.monitor, F.monitorPowerWrapped), major: 1, minor: 2, power: 59, rssi: -90,
                    address: "C4:5B:BE:00:00:08", receiver: "pi-lobby (monitor)")
        #expect(Self.read(.monitor, F.monitorByAddress) == .ignored)
        #expect(Self.read(.monitor, F.monitorOnline) == .receiverStatus(receiver: "pi-lobby (monitor)", online: true))
        #expect(Self.read(.monitor, F.Message(topic: "monitor/scan", payload: #"{"identity":"pi-lobby"}"#)) == .ignored)
    }

    @Test("UUID and address spellings")
    func spellings() {
        let spellings = ["e2c56db5dffb48d2b060d0f5a71096e0", "E2C56DB5DFFB48D2B060D0F5A71096E0",
                         "e2c56db5-dffb-48d2-b060-d0f5a71096e0", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"]
        for spelling in spellings { #expect(GatewaySpelling.uuid(Substring(spelling)) == Self.uuid) }
        for wrong in ["e2c56db5dffb48d2b060d0f5a71096e", "e2c56db5dffb48d2b060d0f5a71096e0a", "g2c56db5dffb48d2b060d0f5a71096e0",
                      "e2c56db5-dffb48d2-b060-d0f5a71096e0-", "iBeacon:e2c56db5dffb48d2b060d0f5a71096e0", ""] {
            #expect(GatewaySpelling.uuid(Substring(wrong)) == nil)
        }
        for spelling in ["c45bbe000001", "C45BBE000001", "c4:5b:be:00:00:01", "C4:5B:BE:00:00:01"] {
            #expect(GatewaySpelling.address(spelling)?.description == "C4:5B:BE:00:00:01")
        }
        for wrong in ["c45bbe00000", "c4-5b-be-00-00-01", "c4:5b:be:00:00:0g", "c45bbe0000011", "+45bbe000001", "c4:5b:be:00:00:+1", ""] {
            #expect(GatewaySpelling.address(wrong) == nil)
        }
        #expect(GatewaySpelling.identityPart(-25536, signed: true) == 40000)
        #expect(GatewaySpelling.identityPart(-1, signed: true) == 65535)
        #expect(GatewaySpelling.identityPart(-1, signed: false) == nil)
        #expect(GatewaySpelling.identityPart(-32769, signed: true) == nil)
        #expect(GatewaySpelling.identityPart(70000, signed: true) == nil)
    }

    /// Each kind's sighting message with one field made hostile.
    static let hostile: [(GatewayKind, F.Message, [(String, String)])] = [
        (.espresense, F.espresenseV4, [
            ("-40000-1", "-70000-1"), ("e2c56db5-dffb-48d2-b060-d0f5a71096e0-40000", "e2c56db5-dffb-48d2-b060-d0f5a71096e-40000"),
            ("\"rssi@1m\":-59", "\"rssi@1m\":\"-59\"x"), ("\"rssi@1m\":-59", "\"rssi@1m\":1e999"), ("\"rssi@1m\":-59", "\"rssi@1m\":-129"),
            ("\"rssi\":-71.50", "\"rssi\":9999999999999999999999"), ("\"rssi\":-71.50", "\"rssi\":true"), ("c45bbe000001", "c45bbe00000"), ("c45bbe000001", "+45bbe000001"),
            (",\"rssi@1m\":-59", ""), ("{", "["), ("}", ""),
        ]),
        (.theengs, F.theengsSignedMajor, [
            ("-25536", "70000"), ("-25536", "-40000"), ("-25536", "\"-25536\"x"), ("-25536", "1.5"), ("-25536", "1e308"),
            ("e2c56db5dffb48d2b060d0f5a71096e0", "e2c56db5dffb48d2b060d0f5a71096e"), ("\"txpower\": -59", "\"txpower\": -300"),
            (", \"txpower\": -59", ""), ("\"major\": -25536, ", ""), ("C4:5B:BE:00:00:03\"", "C4:5B:BE:00:00\""), ("\"rssi\": -70", "\"rssi\": []"),
        ]),
        (.openMQTTGateway, F.omgVoltBesideTxPower, [
            ("\"volt\":5.9", "\"volt\":13"), ("\"volt\":5.9", "\"volt\":5.95"), ("\"volt\":5.9", "\"volt\":-1"), 
            ("\"major\":2", "\"major\":65536"), ("\"minor\":3", "\"minor\":{}"),
        ]),
        (.mqttRoom, F.mqttRoomBeacon, [
            ("\"major\":40000", "\"major\":70000"), ("\"major\":40000", "\"major\":-1"), ("\"txPower\":-59", "\"txPower\":\"loud\""),
            (",\"txPower\":-59", ""), ("\"uuid\":\"e2c56db5dffb48d2b060d0f5a71096e0\"", "\"uuid\":\"e2c56db5dffb48d2b060d0f5a71096zz\""),
            ("\"rssi\":-66", "\"rssi\":-1000"), ("\"id\":\"e2c56db5dffb48d2b060d0f5a71096e0-40000-1\",", ""),
        ]),
        (.roomAssistant, F.roomAssistantBeacon, [
            ("\"major\":1", "\"major\":70000"), ("\"minor\":2", "\"minor\":\"two\""), ("\"rssi\":-70", "\"rssi\":1e400"),
        ]),
        (.monitor, F.monitorBeacon, [
            ("-40000-1\",\"confidence", "-70000-1\",\"confidence"), ("\"power\":\"-59\"", "\"power\":\"-300\""), ("\"power\":\"-59\"", "\"power\":\"x\""),
            ("\"rssi\":\"-67\"", "\"rssi\":\"-999999999999999999999999\""), ("C4:5B:BE:00:00:07", "C4:5B:BE:00:00"),
            ("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-40000-1\",\"confidence", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E-40000-1\",\"confidence"),
            (",\"power\":\"-59\"", ""),
        ]),
    ]

    @Test("hostile payloads: wrong types, huge numbers, missing fields, a UUID of 31 digits, a major of 70000 are malformed, never a crash")
    func hostilePayloads() {
        for (kind, message, edits) in Self.hostile {
            for (from, to) in edits {
                #expect(message.payload.contains(from), "\(kind): fixture lacks \(from)")
                var edited = message
                edited.payload = message.payload.replacing(from, with: to)
                let reading = Self.read(kind, edited)
                #expect(Self.isMalformed(reading) || Self.isWithoutIdentity(reading), "\(kind) \(from) → \(to): \(reading)")
            }
        }
    }

    @Test("any bytes on any kind's topics: a reading, never a crash")
    func garbage() {
        let payloads: [[UInt8]] = [[], [0xFF, 0xFE], Array("{".utf8), Array(repeating: UInt8(ascii: "["), count: 100_000),
                                   Array(repeating: 0x41, count: 20_000), Array("null".utf8), Array("{\"id\":\"iBeacon:\"}".utf8)]
        for kind in GatewayKind.allCases {
            let base = kind.decoder.defaultBase
            let topics = kind.decoder.topicFilters(base: base).map { $0.replacing("+", with: "x") }
                + ["\(base)/devices/iBeacon:x/room", "\(base)/x/BTtoMQTT/x", "\(base)/", "", "/"]
            for topic in topics {
                for payload in payloads {
                    _ = kind.decoder.read(topic: topic, payload: payload, base: base, arrivalTime: Self.arrival)
                }
            }
        }
        // An arrival time no sighting may carry.
        let reading = GatewayKind.espresense.decoder.read(
            topic: F.espresenseV4.topic, payload: F.espresenseV4.bytes, base: "espresense", arrivalTime: .infinity)
        #expect(Self.isMalformed(reading))
    }
}
