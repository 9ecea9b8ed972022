import FleetManifest
import Testing

@testable import BeaconFleet

/// `gateways configure`'s plan: the beacons kept, the broker and the configuration, and
/// what stops it before anything is published.
@Suite struct GatewayConfiguringTests {
    static func fleet() -> Fleet {
        ManifestLoader.load(sources: [("flat.yaml", Array(GatewayKeepListTests.manifest.utf8))]).fleet
    }

    @Test("ESPresense on the URL's base topic, one venue's beacons with --venue")
    func plan() throws {
        let plan = try GatewayConfiguring.plan(
            Self.fleet(), gateway: .espresense, venue: "shop", url: "mqtt://127.0.0.1:1883/espresense", receivers: ["hall"])
        #expect(plan.configuration.base == "espresense")
        #expect(plan.configuration.publications.map(\.topic) == ["espresense/rooms/hall/include/set"])
        #expect(plan.configuration.list.entries == ["iBeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0-40000-"])
        #expect(plan.commandCount == 1)
    }

    @Test("what stops the plan: an unknown venue, Theengs Gateway (no topic to be told), a bad URL")
    func refusals() throws {
        #expect {
            _ = try GatewayConfiguring.plan(Self.fleet(), gateway: .espresense, venue: "cellar", url: "mqtt://127.0.0.1", receivers: [])
        } throws: { error in
            guard let failure = error as? GatewayConfiguringError, case .noSuchVenue("cellar", ["flat", "shop"]) = failure else { return false }
            return true
        }
        #expect {
            _ = try GatewayConfiguring.plan(Self.fleet(), gateway: .theengs, venue: nil, url: "mqtt://127.0.0.1", receivers: [])
        } throws: { error in
            guard let failure = error as? GatewayConfiguringError, case .unsupported = failure else { return false }
            return failure.description.contains("fleet export --format theengs")
        }
        #expect {
            _ = try GatewayConfiguring.plan(Self.fleet(), gateway: .espresense, venue: nil, url: "http://127.0.0.1", receivers: [])
        } throws: { error in
            guard let failure = error as? GatewayConfiguringError, case .setup(.url) = failure else { return false }
            return true
        }
    }
}
