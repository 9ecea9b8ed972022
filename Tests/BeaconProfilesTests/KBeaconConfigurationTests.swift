import BeaconCore
import Foundation
import Testing

@testable import BeaconProfiles

/// KBeacon's JSON configuration (KBCfgCommon.java, KBCfgAdvBase.java, KBCfgAdvIBeacon.java,
/// KBCfgHandler.java): reading an answer, writing only the fields asked, malformed answers.
@Suite("KBeacon configuration messages")
struct KBeaconConfigurationTests {
    static let uuid = ProximityUUID(high: 0xE2C5_6DB5_DFFB_48D2, low: 0xB060_D0F5_A710_96E0)

    static let answer = #"""
        {"model":"BC011","ver":"5.31","btPt":87,"meaPwr":-59,"minPwr":-40,"maxPwr":4,"maxPrd":20000.0,
         "advObj":[{"slot":1,"type":2,"txPwr":0,"advPrd":1000.0},
                   {"slot":2,"type":5,"txPwr":-4,"advPrd":500.0,"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","majorID":7,"minorID":300}],
         "sensorKey":{"x":1}}
        """#

    @Test("an answer becomes a reading: the iBeacon slot's identity, power and interval; model, firmware, battery")
    func reading() throws {
        let configuration = try KBeaconConfiguration(json: Array(Self.answer.utf8))
        #expect(configuration.iBeaconSlot?.index == 2)
        let reading = configuration.reading
        #expect(reading.settings == BeaconSettings(uuid: Self.uuid, major: 7, minor: 300, measuredPower: -59, txPower: -4, advertisingInterval: 500))
        #expect(reading.model == "BC011")
        #expect(reading.firmware == "5.31")
        #expect(reading.batteryPercent == 87)
    }

    @Test("a write carries only the fields asked, in the iBeacon slot with its slot and type")
    func write() throws {
        let configuration = try KBeaconConfiguration(json: Array(Self.answer.utf8))
        let target = BeaconSettings(uuid: Self.uuid, major: 8, minor: 300, measuredPower: -61)
        let message = try configuration.writeMessage([.major, .measuredPower], of: target)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(message)) as? [String: Any])
        #expect(object["msg"] as? String == "cfg")
        #expect(object["meaPwr"] as? Int == -61)
        let slots = try #require(object["advObj"] as? [[String: Any]])
        #expect(slots.count == 1)
        #expect(slots[0]["slot"] as? Int == 2)
        #expect(slots[0]["type"] as? Int == 5)
        #expect(slots[0]["majorID"] as? Int == 8)
        #expect(slots[0]["uuid"] == nil)
        #expect(slots[0]["minorID"] == nil)
    }

    @Test("without an iBeacon slot, slot 0 becomes one, and only with a whole identity")
    func noIBeaconSlot() throws {
        let configuration = try KBeaconConfiguration(json: Array(#"{"advObj":[{"slot":0,"type":2}]}"#.utf8))
        #expect(configuration.reading.settings.identity == nil)
        #expect(throws: KBeaconConfigurationError.noIBeaconSlot) {
            try configuration.writeMessage([.major], of: BeaconSettings(major: 3))
        }
        let message = try configuration.writeMessage([.major], of: BeaconSettings(uuid: Self.uuid, major: 3, minor: 4))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(message)) as? [String: Any])
        let slot = try #require((object["advObj"] as? [[String: Any]])?.first)
        #expect(slot["slot"] as? Int == 0)
        #expect(slot["uuid"] as? String == "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")
        #expect(slot["minorID"] as? Int == 4)
    }

    @Test("values outside the beacon's ranges are not sent")
    func ranges() throws {
        let configuration = try KBeaconConfiguration(json: Array(Self.answer.utf8))
        #expect(throws: KBeaconConfigurationError.self) { try configuration.writeMessage([.measuredPower], of: BeaconSettings(measuredPower: -90)) }
        #expect(throws: KBeaconConfigurationError.self) { try configuration.writeMessage([.txPower], of: BeaconSettings(txPower: 8)) }
        #expect(throws: KBeaconConfigurationError.self) {
            try configuration.writeMessage([.advertisingInterval], of: BeaconSettings(advertisingInterval: 30000))
        }
        #expect(throws: KBeaconConfigurationError.self) {
            try configuration.writeMessage([.advertisingInterval], of: BeaconSettings(advertisingInterval: 50))
        }
    }

    @Test("the password message carries the password and nothing else")
    func passwordMessage() throws {
        let message = KBeaconConfiguration.passwordMessage(BeaconPassword("new-pass-1234"))
        #expect(String(decoding: message, as: UTF8.self) == #"{"msg":"cfg","pwd":"new-pass-1234"}"#)
    }

    @Test("malformed answers say what is wrong", arguments: [
        ("not json", KBeaconConfigurationError.notJSON),
        ("[1,2]", .notAnObject),
        (#"{"model":5}"#, .wrongKind(key: "model", expected: "a string")),
        (#"{"meaPwr":"-59"}"#, .wrongKind(key: "meaPwr", expected: "a number")),
        (#"{"meaPwr":-59.5}"#, .wrongKind(key: "meaPwr", expected: "a whole number")),
        (#"{"btPt":1e300}"#, .wrongKind(key: "btPt", expected: "a whole number")),
        (#"{"advObj":{}}"#, .wrongKind(key: "advObj", expected: "an array")),
        (#"{"advObj":[1]}"#, .wrongKind(key: "advObj", expected: "an array of objects")),
        (#"{"advObj":[{"slot":0,"type":5,"majorID":70000}]}"#, .invalid(key: "majorID", why: "70000 is outside 0…65535")),
        // Found by BeaconProfilesFuzz: a power range upside down once made a range that trapped.
        (#"{"minPwr":740,"maxPwr":4}"#, .invalid(key: "minPwr", why: "740 dBm is above maxPwr, 4 dBm")),
        (#"{"advObj":[{"slot":0,"type":5,"uuid":"nope"}]}"#, .invalid(key: "uuid", why: "\(ProximityUUIDParseError.wrongLength(4))")),
    ])
    func malformed(json: String, error: KBeaconConfigurationError) {
        #expect(throws: error) { try KBeaconConfiguration(json: Array(json.utf8)) }
    }

    @Test("an answer longer than the SDK's 4096-byte buffer is refused before parsing")
    func tooLong() {
        #expect(throws: KBeaconConfigurationError.tooLong(5000)) { try KBeaconConfiguration(json: [UInt8](repeating: 0x20, count: 5000)) }
    }
}
