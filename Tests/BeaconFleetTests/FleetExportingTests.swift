import FleetManifest
import Testing

@testable import BeaconFleet

/// `fleet export`'s use case: which beacons, which format, and what it refuses.
@Suite struct FleetExportingTests {
    static let manifest = """
        version: 1
        fleet: flat
        uuid: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0
        venues:
          - id: flat
            major: 7
            beacons:
              - {id: keys, minor: 1, mac: "C4:5B:BE:00:00:01"}
              - {id: bag, minor: 2}
          - id: shop
            major: 40000
            beacons:
              - {id: till, minor: 7, mac: "C4:5B:BE:00:00:07"}
        """

    static func fleet(_ text: String = manifest) throws -> Fleet {
        let result = ManifestLoader.load(sources: [("flat.yaml", Array(text.utf8))])
        try #require(result.errorCount == 0)
        return result.fleet
    }

    @Test("csv and json: the fleet's beacons, or one venue's with --venue")
    func beaconRows() throws {
        let fleet = try Self.fleet()
        #expect(try FleetExporting.text(fleet, format: .csv, venue: nil, budget: .iOS) == FleetExport.csv(fleet.beacons))
        let shop = try FleetExporting.text(fleet, format: .json, venue: "shop", budget: .iOS)
        #expect(shop == FleetExport.json(fleet.beacons.filter { $0.id == "till" }))
    }

    @Test("an unknown venue is a usage error that names the manifest's venues")
    func unknownVenue() throws {
        #expect {
            _ = try FleetExporting.text(try Self.fleet(), format: .csv, venue: "cellar", budget: .iOS)
        } throws: { error in
            guard let failure = error as? FleetExportError else { return false }
            return !failure.isFinding && failure.description.contains("cellar") && failure.description.contains("flat, shop")
        }
    }

    @Test("a keep-list by address refuses beacons without mac: a finding, naming them")
    func keepListNeedsAddresses() throws {
        #expect {
            _ = try FleetExporting.text(try Self.fleet(), format: .openMQTTGateway, venue: "flat", budget: .iOS)
        } throws: { error in
            guard let failure = error as? FleetExportError, case .keepList = failure else { return false }
            return failure.isFinding && failure.description.contains("`bag`")
        }
        // The shop's one beacon has its mac: the list is written, one line.
        let shop = try FleetExporting.text(try Self.fleet(), format: .openMQTTGateway, venue: "shop", budget: .iOS)
        #expect(shop.hasSuffix("\n") && shop.contains("C4:5B:BE:00:00:07"))
    }

    @Test("iOS regions over the budget are refused as a finding; Android's are not budgeted")
    func regionBudget() throws {
        var text = Self.manifest + "\nregions:\n"
        for minor in 1...3 { text += "  - {id: r\(minor), major: 7, minor: \(minor)}\n" }
        let fleet = try Self.fleet(text)
        let budget = try #require(RegionBudget(2))
        for format in [FleetExportFormat.iOSRegions, .swift] {
            #expect {
                _ = try FleetExporting.text(fleet, format: format, venue: nil, budget: budget)
            } throws: { error in
                guard let failure = error as? FleetExportError, case .overBudget(3, 2, _) = failure else { return false }
                return failure.isFinding
            }
        }
        #expect(try FleetExporting.text(fleet, format: .androidRegions, venue: nil, budget: budget).contains("r3"))
    }
}
