import Foundation
import Testing
@testable import BeaconCLI

/// `fleet export` for apps and receivers, and `gateways configure --dry-run`, as a user runs them.
@Suite struct FleetExportAppsCommandTests {
    static let manifest = """
        version: 1
        fleet: jays
        uuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3
        venues:
          - id: store-1
            major: 1
            beacons:
              - {id: s1-door, minor: 1, mac: "C4:5B:BE:00:01:01"}
              - {id: s1-till, minor: 2, mac: "C4:5B:BE:00:01:02"}
          - id: store-2
            major: 2
            beacons:
              - {id: s2-door, minor: 1}
        regions:
          - id: any-jays
          - id: store-1
            major: 1
          - id: s1-till
            major: 1
            minor: 2
        """

    @Test("ios-regions, swift and android-regions write the manifest's regions; exit 0")
    func appFormats() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("jays.yaml", Self.manifest)
        let ios = await runBeaconctl(["fleet", "export", file, "--format", "ios-regions"])
        #expect(ios.status == 0, "\(ios.error)")
        #expect(ios.output.contains(#"{"identifier": "s1-till", "uuid": "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3", "major": 1, "minor": 2,"#))
        let swift = await runBeaconctl(["fleet", "export", file, "--format", "swift"])
        #expect(swift.status == 0 && swift.output.contains("import CoreLocation") && swift.output.contains(#"identifier: "any-jays","#))
        let android = await runBeaconctl(["fleet", "export", file, "--format", "android-regions"])
        #expect(android.status == 0 && android.output.contains(#""uniqueId": "store-1", "id1": "89d6e936-f61f-4227-bcd2-6e94c5a6b2e3", "id2": "1", "id3": null"#))
    }

    @Test("more regions than --region-budget: refused with exit 1 and the wildcard regions that cover them; fleet validate warns")
    func overBudget() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("jays.yaml", Self.manifest)
        let refused = await runBeaconctl(["fleet", "export", file, "--format", "ios-regions", "--region-budget", "2"])
        #expect(refused.status == 1)
        #expect(refused.output.isEmpty)
        #expect(refused.error.contains("the manifest has 3 regions and an app can monitor 2 (--region-budget): monitor 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3 major 1 (venue store-1) instead of `store-1`, `s1-till`; that makes 2 regions"), "\(refused.error)")
        let validate = await runBeaconctl(["fleet", "validate", file, "--region-budget", "2"])
        #expect(validate.status == 0)
        #expect(validate.output.contains("warning[region-budget]: the fleet has 3 regions and an app can monitor 2"))
        let strict = await runBeaconctl(["fleet", "validate", file, "--region-budget", "2", "--strict"])
        #expect(strict.status == 1)
        for wrong in ["0", "21"] {
            let usage = await runBeaconctl(["fleet", "export", file, "--format", "swift", "--region-budget", wrong])
            #expect(usage.status == 2 && usage.error.contains("--region-budget must be from 1 to 20"), "\(usage.error)")
        }
        let venue = await runBeaconctl(["fleet", "export", file, "--format", "swift", "--venue", "store-1"])
        #expect(venue.status == 2 && venue.error.contains("leave --venue out"))
    }

    @Test("receiver keep-lists: ESPresense prefixes for a venue; address lists refused while a beacon has no mac")
    func receiverFormats() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("jays.yaml", Self.manifest)
        let espresense = await runBeaconctl(["fleet", "export", file, "--format", "espresense", "--venue", "store-2"])
        #expect(espresense.status == 0)
        #expect(espresense.output == "iBeacon:89d6e936-f61f-4227-bcd2-6e94c5a6b2e3-2-\n")
        let omg = await runBeaconctl(["fleet", "export", file, "--format", "openmqttgateway", "--venue", "store-1"])
        #expect(omg.output == #"{"white-list":["C4:5B:BE:00:01:01","c4:5b:be:00:01:01","C4:5B:BE:00:01:02","c4:5b:be:00:01:02"],"ignoreWBlist":false}"# + "\n")
        let theengs = await runBeaconctl(["fleet", "export", file, "--format", "theengs"])
        #expect(theengs.status == 1 && theengs.error.contains("(`s2-door`) has no `mac`"), "\(theengs.error)")
        let unknown = await runBeaconctl(["fleet", "export", file, "--format", "espresense", "--venue", "store-9"])
        #expect(unknown.status == 2 && unknown.error.contains("its venues: store-1, store-2"))
    }

    @Test("gateways configure --dry-run prints each topic and payload and publishes nothing; Theengs Gateway is refused with exit 2")
    func configureDryRun() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("jays.yaml", Self.manifest)
        // Port 1: nothing listens there, and a dry run must not try.
        let espresense = await runBeaconctl([
            "gateways", "configure", file, "--mqtt", "mqtt://127.0.0.1:1", "--gateway", "espresense", "--dry-run",
        ])
        #expect(espresense.status == 0, "\(espresense.error)")
        #expect(espresense.output == "would publish to espresense/rooms/*/include/set: iBeacon:89d6e936-f61f-4227-bcd2-6e94c5a6b2e3-1- iBeacon:89d6e936-f61f-4227-bcd2-6e94c5a6b2e3-2-\n")
        let omg = await runBeaconctl([
            "gateways", "configure", file, "--mqtt", "mqtt://127.0.0.1:1/home", "--gateway", "openmqttgateway",
            "--venue", "store-1", "--receiver", "shop", "--receiver", "back", "--dry-run",
        ])
        #expect(omg.output == """
            would publish to home/shop/commands/MQTTtoBT/config (retained): {"white-list":["C4:5B:BE:00:01:01","c4:5b:be:00:01:01","C4:5B:BE:00:01:02","c4:5b:be:00:01:02"],"ignoreWBlist":false}
            would publish to home/back/commands/MQTTtoBT/config (retained): {"white-list":["C4:5B:BE:00:01:01","c4:5b:be:00:01:01","C4:5B:BE:00:01:02","c4:5b:be:00:01:02"],"ignoreWBlist":false}

            """)
        let theengs = await runBeaconctl(["gateways", "configure", file, "--mqtt", "mqtt://127.0.0.1:1", "--gateway", "theengs", "--venue", "store-1"])
        #expect(theengs.status == 2 && theengs.error.contains("fleet export --format theengs"), "\(theengs.error)")
        let noBroker = await runBeaconctl(["gateways", "configure", file, "--gateway", "espresense"])
        #expect(noBroker.status == 2 && noBroker.error.contains("--mqtt"))
        // Nothing listens on port 1: the subscriptions are never acknowledged, nothing is
        // published, and the --timeout (a real second: the deadline is what is tested) ends it.
        let unreachable = await runBeaconctl(["gateways", "configure", file, "--mqtt", "mqtt://127.0.0.1:1", "--gateway", "espresense", "--timeout", "1"])
        #expect(unreachable.status == 3, "\(unreachable.error)")
        #expect(unreachable.error.contains("nothing was published: mqtt://127.0.0.1:1/espresense did not acknowledge the subscriptions within 1 s"), "\(unreachable.error)")
        let badName = await runBeaconctl(["gateways", "configure", file, "--mqtt", "mqtt://127.0.0.1:1", "--gateway", "espresense", "--receiver", "a/b"])
        #expect(badName.status == 2 && badName.error.contains("one topic level"))
    }
}
