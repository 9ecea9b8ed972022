import BeaconCore
import FleetManifest
import Foundation
import Testing

@testable import BeaconFleet

/// Keep-lists made from the manifest, in each gateway's spelling, and the configuration
/// topics and read-back of `gateways configure` (`GatewayConfigurationFixtures`).
@Suite struct GatewayKeepListTests {
    typealias Fixtures = GatewayConfigurationFixtures

    static let manifest = """
        version: 1
        fleet: flat
        uuid: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0
        venues:
          - id: flat
            major: 7
            beacons:
              - {id: keys, minor: 1, mac: "C4:5B:BE:00:00:01"}
              - {id: bag, minor: 2, mac: "C4:5B:BE:00:00:02"}
          - id: shop
            major: 40000
            beacons:
              - {id: till, minor: 7, mac: "C4:5B:BE:00:00:07"}
        """

    static func beacons(_ text: String = manifest) -> [ResolvedBeacon] {
        let result = ManifestLoader.load(sources: [("flat.yaml", Array(text.utf8))])
        return result.fleet.beacons
    }

    static func identity(_ uuid: String, _ major: UInt16, _ minor: UInt16) throws -> BeaconIdentity {
        BeaconIdentity(uuid: try ProximityUUID(parsing: uuid), major: major, minor: minor)
    }

    /// MQTT 5.0 §4.7 topic filter matching (`+` one level, `#` the rest); `*` is no wildcard
    /// in MQTT, which is why ESPresense's `rooms/*/…` reaches every board.
    static func matches(filter: String, topic: String) -> Bool {
        let filterLevels = filter.split(separator: "/", omittingEmptySubsequences: false)
        let topicLevels = topic.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in filterLevels.enumerated() {
            if level == "#" { return true }
            guard index < topicLevels.count, level == "+" || level == topicLevels[index] else { return false }
        }
        return filterLevels.count == topicLevels.count
    }

    @Test("ESPresense: one id prefix per UUID and major, which keeps every minor of the fleet's majors and no other device")
    func espresensePrefixes() throws {
        let list = try GatewayKeepList(.espresense, beacons: Self.beacons())
        #expect(list.entries == ["iBeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0-7-", "iBeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0-40000-"])
        #expect(list.text == list.entries.joined(separator: " "))
        // The id ESPresense builds for a fleet beacon starts with a prefix of the list.
        #expect(list.entries.contains { Fixtures.espresenseBeaconID.hasPrefix($0) })
        let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
        #expect(list.keeps(try Self.identity(uuid, 7, 1), address: nil))
        #expect(list.keeps(try Self.identity(uuid, 7, 99), address: nil), "a copy of the fleet's numbers stays in view")
        #expect(!list.keeps(try Self.identity(uuid, 70, 1), address: nil), "major 70 does not start with `-7-`")
        #expect(!list.keeps(try Self.identity("89D6E936-F61F-4227-BCD2-6E94C5A6B2E3", 7, 1), address: nil))
    }

    @Test("OpenMQTTGateway and Theengs Gateway: the beacons' addresses, upper case with colons, in their own keys")
    func addressLists() throws {
        let omg = try GatewayKeepList(.openMQTTGateway, beacons: Self.beacons())
        #expect(omg.entries == ["C4:5B:BE:00:00:01", "C4:5B:BE:00:00:02", "C4:5B:BE:00:00:07"])
        let command = try #require(try JSONSerialization.jsonObject(with: Data(omg.text.utf8)) as? [String: Any])
        #expect(command["white-list"] as? [String] == omg.entries.flatMap { [$0, $0.lowercased()] }, "each address in both cases")
        #expect(command["ignoreWBlist"] as? Bool == false)
        let theengs = try GatewayKeepList(.theengs, beacons: Self.beacons())
        let fragment = try #require(try JSONSerialization.jsonObject(with: Data(theengs.text.utf8)) as? [String: Any])
        #expect(Set(fragment.keys) == [Fixtures.theengsWhitelistKey])
        #expect(fragment[Fixtures.theengsWhitelistKey] as? [String] == omg.entries)
        let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
        #expect(omg.keeps(try Self.identity(uuid, 7, 1), address: BluetoothAddress("C4:5B:BE:00:00:01")))
        #expect(!omg.keeps(try Self.identity(uuid, 7, 1), address: BluetoothAddress("C4:5B:BE:00:00:AA")))
        #expect(!omg.keeps(try Self.identity(uuid, 7, 1), address: nil))
    }

    @Test("OpenMQTTGateway: a long list goes in runs of 8 addresses, not retained (one retained message per topic), confirmed by one answer per command")
    func openMQTTGatewayLongList() throws {
        var text = "version: 1\nfleet: shop\nuuid: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0\nvenues:\n  - id: shop\n    major: 1\n    beacons:\n"
        for minor in 1...20 { text += "      - {id: b\(minor), minor: \(minor), mac: \"C4:5B:BE:00:01:\(String(format: "%02X", minor))\"}\n" }
        let list = try GatewayKeepList(.openMQTTGateway, beacons: Self.beacons(text))
        let commands = list.openMQTTGatewayCommands
        #expect(commands.count == 3)
        let listed = try commands.flatMap { command -> [String] in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(command.utf8)) as? [String: Any])
            let addresses = try #require(object["white-list"] as? [String])
            #expect(addresses.count <= 2 * GatewayKeepList.openMQTTGatewayAddressesPerCommand)
            return addresses
        }
        #expect(listed == list.entries.flatMap { [$0, $0.lowercased()] })
        #expect(list.text == commands.joined(separator: "\n"))
        let configuration = try GatewayConfiguration(list: list, base: "home", receivers: ["shop"])
        #expect(configuration.publications.count == 3 && configuration.publications.allSatisfy { !$0.retain })
        var readBack = GatewayConfiguration.ReadBack()
        for answer in 1...3 {
            #expect(!configuration.isComplete(readBack), "after \(answer - 1) answers")
            configuration.read(topic: "home/shop/BTtoMQTT", payload: Array(Fixtures.openMQTTGatewaySettings.utf8), retained: false, into: &readBack)
        }
        #expect(configuration.isComplete(readBack))
    }

    @Test("an address list is refused while a beacon has no mac: it would stop being reported")
    func missingAddressesAreRefused() {
        let without = Self.manifest.replacingOccurrences(of: ", mac: \"C4:5B:BE:00:00:02\"", with: "")
        #expect(throws: GatewayKeepList.MissingAddresses(kind: .openMQTTGateway, beacons: ["bag"])) {
            try GatewayKeepList(.openMQTTGateway, beacons: Self.beacons(without))
        }
        #expect((try? GatewayKeepList(.espresense, beacons: Self.beacons(without))) != nil, "ESPresense lists identities")
    }

    @Test("ESPresense: published on every board's include topic (or each room's), read back from each board's retained include")
    func espresenseConfiguration() throws {
        let list = try GatewayKeepList(.espresense, beacons: Self.beacons())
        let everyBoard = try GatewayConfiguration(list: list, base: nil, receivers: [])
        #expect(everyBoard.publications == [.init(topic: Fixtures.espresenseEveryBoardInclude, payload: list.text, retain: false)])
        #expect(everyBoard.answerFilters == ["espresense/rooms/+/include", "espresense/rooms/+/status"])
        let kitchen = try GatewayConfiguration(list: list, base: "espresense", receivers: ["kitchen"])
        #expect(kitchen.publications.map(\.topic) == ["espresense/rooms/kitchen/include/set"])
        // The board's own subscription takes the topic (MQTT topic filter matching).
        #expect(Fixtures.espresenseSubscriptions(room: "kitchen").contains { Self.matches(filter: $0, topic: kitchen.publications[0].topic) })
        #expect(Fixtures.espresenseSubscriptions(room: "kitchen").contains { Self.matches(filter: $0, topic: everyBoard.publications[0].topic) })

        var readBack = GatewayConfiguration.ReadBack()
        everyBoard.read(topic: "espresense/rooms/kitchen/status", payload: Array("online".utf8), retained: true, into: &readBack)
        everyBoard.read(topic: "espresense/rooms/hall/status", payload: Array("online".utf8), retained: true, into: &readBack)
        everyBoard.read(topic: Fixtures.espresenseIncludeReport(room: "hall"), payload: Array("apple:".utf8), retained: true, into: &readBack)
        #expect(everyBoard.expected(readBack) == ["hall", "kitchen"])
        #expect(!everyBoard.isComplete(readBack))
        everyBoard.read(topic: Fixtures.espresenseIncludeReport(room: "kitchen"), payload: Array(list.text.utf8), retained: false, into: &readBack)
        #expect(readBack.confirmed == ["kitchen"] && readBack.differing["hall"] == #"its include is "apple:""#)
        everyBoard.read(topic: Fixtures.espresenseIncludeReport(room: "hall"), payload: Array(list.text.utf8), retained: false, into: &readBack)
        #expect(everyBoard.isComplete(readBack))
    }

    @Test("OpenMQTTGateway: the retained white-list command on its name's config topic, confirmed by the settings it publishes next")
    func openMQTTGatewayConfiguration() throws {
        let list = try GatewayKeepList(.openMQTTGateway, beacons: Self.beacons())
        let configuration = try GatewayConfiguration(list: list, base: nil, receivers: [])
        #expect(configuration.publications == [.init(topic: Fixtures.openMQTTGatewayCommand, payload: list.text, retain: true)])
        #expect(configuration.answerFilters == [Fixtures.openMQTTGatewaySettingsTopic, "home/OpenMQTTGateway/LWT"])
        var readBack = GatewayConfiguration.ReadBack()
        // A settings message kept from before is no answer to this command.
        configuration.read(topic: Fixtures.openMQTTGatewaySettingsTopic, payload: Array(Fixtures.openMQTTGatewaySettings.utf8), retained: true, into: &readBack)
        #expect(!configuration.isComplete(readBack))
        let ignoring = Fixtures.openMQTTGatewaySettings.replacingOccurrences(of: #""ignoreWBlist":false"#, with: #""ignoreWBlist":true"#)
        configuration.read(topic: Fixtures.openMQTTGatewaySettingsTopic, payload: Array(ignoring.utf8), retained: false, into: &readBack)
        #expect(!configuration.isComplete(readBack) && readBack.differing["OpenMQTTGateway"]?.contains("ignoreWBlist") == true)
        configuration.read(topic: Fixtures.openMQTTGatewaySettingsTopic, payload: Array(Fixtures.openMQTTGatewaySettings.utf8), retained: false, into: &readBack)
        #expect(configuration.isComplete(readBack))
        // Unreadable answers are passed over, never trusted.
        var other = GatewayConfiguration.ReadBack()
        for payload in ["", "{", #"{"ignoreWBlist":"no"}"#, String(repeating: "x", count: 20_000)] {
            configuration.read(topic: Fixtures.openMQTTGatewaySettingsTopic, payload: Array(payload.utf8), retained: false, into: &other)
        }
        #expect(other.confirmed.isEmpty)
    }

    @Test("Theengs Gateway has no topic to be told its list: refused, pointing at the file")
    func theengsIsUnsupported() throws {
        let list = try GatewayKeepList(.theengs, beacons: Self.beacons())
        #expect(throws: GatewayConfiguration.Unsupported(kind: .theengs)) {
            try GatewayConfiguration(list: list, base: nil, receivers: [])
        }
    }
}
