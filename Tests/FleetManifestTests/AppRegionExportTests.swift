import BeaconCore
import Foundation
import Testing

@testable import FleetManifest

/// The regions an app gets from the manifest (docs/apps.md), checked against each platform's
/// documented names and limits, and the 20-region budget with its computed wildcard advice.
@Suite struct AppRegionExportTests {
    static let uuid = "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3"

    /// Three stores of four beacons, a region per beacon (12), one per store (3), one for
    /// the chain: 16 regions.
    static func chain(regionsPerBeacon: Bool = true, extraUUID: Bool = false) -> String {
        var text = """
            version: 1
            fleet: jays
            uuid: \(uuid)
            venues:

            """
        for store in 1...3 {
            text += "  - id: store-\(store)\n    major: \(store)\n    beacons:\n"
            for spot in 1...4 { text += "      - {id: s\(store)-b\(spot), minor: \(spot)}\n" }
        }
        text += "regions:\n  - id: any-jays\n"
        for store in 1...3 { text += "  - id: store-\(store)\n    major: \(store)\n" }
        if regionsPerBeacon {
            for store in 1...3 {
                for spot in 1...4 { text += "  - id: r\(store)-\(spot)\n    major: \(store)\n    minor: \(spot)\n" }
            }
        }
        if extraUUID { text += "  - id: partner\n    uuid: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0\n" }
        return text
    }

    static func load(_ text: String, budget: RegionBudget = .iOS) -> ManifestLoadResult {
        ManifestLoader.load(sources: [("jays.yaml", Array(text.utf8))], options: ValidationOptions(regionBudget: budget))
    }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("ios-regions: CLBeaconRegion's property names, an upper-case UUID that UUID(uuidString:) reads, 16-bit major and minor or none, at most 20")
    func iOSRegionsUseCoreLocationNamesAndLimits() throws {
        let result = Self.load(Self.chain())
        #expect(result.errorCount == 0)
        let json = try Self.object(AppRegionExport.iOSJSON(result.fleet.regions, fleet: "jays", budget: .iOS))
        #expect(json["fleet"] as? String == "jays")
        #expect(json["region_budget"] as? Int == 20)
        let regions = try #require(json["regions"] as? [[String: Any]])
        #expect(regions.count == 16 && regions.count <= RegionBudget.iOSLimit)
        let allowed: Set<String> = ["identifier", "uuid", "major", "minor", "notifyOnEntry", "notifyOnExit", "requestStateOnStart"]
        var identifiers = Set<String>()
        for region in regions {
            #expect(Set(region.keys).isSubset(of: allowed), "\(region.keys)")
            let identifier = try #require(region["identifier"] as? String)
            #expect(!identifier.isEmpty && identifiers.insert(identifier).inserted)
            let uuid = try #require(region["uuid"] as? String)
            #expect(UUID(uuidString: uuid)?.uuidString == uuid, "\(uuid) is not UUID.uuidString's form")
            for key in ["major", "minor"] {
                if let value = region[key] { #expect((value as? Int).map { (0...65535).contains($0) } == true, "\(key) \(value)") }
            }
            #expect(region["minor"] == nil || region["major"] != nil, "CLBeaconRegion has no minor without a major")
            #expect(region["notifyOnEntry"] is Bool && region["notifyOnExit"] is Bool && region["requestStateOnStart"] is Bool)
        }
        #expect(regions[0]["major"] == nil && regions[0]["minor"] == nil, "any-jays is the UUID alone")
        #expect(regions[4]["identifier"] as? String == "r1-1" && regions[4]["major"] as? Int == 1 && regions[4]["minor"] as? Int == 1)
    }

    @Test("android-regions: AltBeacon Region(uniqueId, id1, id2, id3) as Identifier.parse reads them, null for a wildcard, and the iBeacon layout")
    func androidRegionsUseAltBeaconFields() throws {
        let result = Self.load(Self.chain())
        let json = try Self.object(AppRegionExport.androidJSON(result.fleet.regions, fleet: "jays"))
        #expect(json["beacon_layout"] as? String == "m:2-3=0215,i:4-19,i:20-21,i:22-23,p:24-24")
        let regions = try #require(json["regions"] as? [[String: Any]])
        #expect(regions.count == 16)
        for region in regions {
            #expect(Set(region.keys) == ["uniqueId", "id1", "id2", "id3"])
            #expect((region["uniqueId"] as? String)?.isEmpty == false)
            let id1 = try #require(region["id1"] as? String)
            #expect(id1 == Self.uuid.lowercased())
            for key in ["id2", "id3"] {
                if let text = region[key] as? String {
                    #expect(UInt16(text) != nil, "\(key) \(text) is not a decimal 16-bit identifier")
                } else {
                    #expect(region[key] is NSNull)
                }
            }
        }
        #expect(regions[0]["id2"] is NSNull && regions[0]["id3"] is NSNull)
        #expect(regions[1]["id2"] as? String == "1" && regions[1]["id3"] is NSNull)
    }

    @Test("an empty regions list is an empty array in both formats")
    func noRegions() throws {
        #expect(try Self.object(AppRegionExport.iOSJSON([], fleet: "f", budget: .iOS))["regions"] as? [Any] != nil)
        #expect(try Self.object(AppRegionExport.androidJSON([], fleet: "f"))["regions"] as? [Any] != nil)
    }

    @Test("within the budget: no warning, and the verdict is fits")
    func withinBudget() {
        let result = Self.load(Self.chain())
        #expect(!result.diagnostics.contains { $0.code == "region-budget" })
        #expect(RegionBudget.iOS.check(result.fleet.regions, beacons: result.fleet.beacons) == .fits)
    }

    @Test("over the budget: a warning at the first region past it, and covers that match every beacon the regions matched")
    func overBudgetIsCoveredByWildcards() throws {
        let budget = try #require(RegionBudget(10))
        let result = Self.load(Self.chain(), budget: budget)
        let warning = try #require(result.diagnostics.first { $0.code == "region-budget" })
        #expect(warning.severity == .warning)
        #expect(warning.message == "the fleet has 16 regions and an app can monitor 10 (Core Location's limit is 20, geofences included)")
        #expect(warning.location.line == result.fleet.regions[10].location.line)
        let hint = try #require(warning.hint)
        #expect(hint.contains("monitor \(Self.uuid) major 1 (venue store-1) instead of `store-1`, `r1-1`, `r1-2`, `r1-3` and 1 more"), "\(hint)")

        guard case .coveredBy(let covers) = budget.check(result.fleet.regions, beacons: result.fleet.beacons) else {
            Issue.record("expected covers")
            return
        }
        #expect(covers.count <= budget.limit)
        // Every region of the manifest is stood for exactly once.
        #expect(covers.flatMap(\.replaces).sorted() == result.fleet.regions.map(\.region.identifier).sorted())
        // Every beacon a manifest region matched, a cover matches.
        for beacon in result.fleet.beacons where result.fleet.regions.contains(where: { $0.region.matches(beacon.identity) }) {
            #expect(covers.contains { cover in
                BeaconRegion(identifier: "", uuid: cover.uuid, major: cover.major, minor: cover.minor)?.matches(beacon.identity) == true
            }, "\(beacon.id)")
        }
    }

    @Test("a budget of one leaves the UUID alone; two UUIDs cannot fit one region")
    func smallestBudgets() throws {
        let one = try #require(RegionBudget(1))
        let result = Self.load(Self.chain(regionsPerBeacon: false), budget: one)
        #expect(one.check(result.fleet.regions, beacons: result.fleet.beacons) == .coveredBy([
            .init(uuid: try ProximityUUID(parsing: Self.uuid), major: nil, minor: nil,
                  replaces: ["any-jays", "store-1", "store-2", "store-3"], venues: ["store-1", "store-2", "store-3"]),
        ]))
        let twoUUIDs = Self.load(Self.chain(regionsPerBeacon: false, extraUUID: true), budget: one)
        #expect(one.check(twoUUIDs.fleet.regions, beacons: twoUUIDs.fleet.beacons) == .tooManyUUIDs(2))
        let warning = try #require(twoUUIDs.diagnostics.first { $0.code == "region-budget" })
        #expect(warning.hint?.contains("give the fleet one UUID") == true)
    }

    @Test("budgets outside 1 … 20 do not exist")
    func budgetRange() {
        #expect(RegionBudget(0) == nil && RegionBudget(21) == nil && RegionBudget(20)?.limit == 20)
    }

    @Test("Swift string literals escape quotes, backslashes and everything outside printable ASCII")
    func swiftStringLiterals() {
        #expect(AppRegionSwiftSource.stringLiteral("a\"b\\c ☕\n") == #""a\"b\\c \u{2615}\u{A}""#)
        #expect(AppRegionSwiftSource.uuidLiteral(try! ProximityUUID(parsing: Self.uuid)).hasPrefix("UUID(uuid: (0x89, 0xD6, 0xE9, 0x36,"))
    }
}
