import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

@testable import BeaconCLI

@Suite("beaconctl plan coverage")
struct PlanCoverageCommandTests {
    let manifest = """
        version: 1
        fleet: corner-shop
        uuid: 04F6CBA0-321A-40F4-BDE2-A613959BBF4B
        defaults:
          tx_power: -8
        venues:
          - id: shop
            name: Corner shop
            major: 1
            plan: {width: 20, height: 10}
            beacons:
              - {id: shop-west, minor: 1, position: [5, 5]}
              - {id: shop-east, minor: 2, position: [15, 5]}
          - id: stockroom
            major: 2
            beacons:
              - {id: stock, minor: 1}
        """

    @Test("a text summary of the venue, exit 0")
    func textSummary() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("shop.yaml", manifest)
        let result = await runBeaconctl(["plan", "coverage", file, "--venue", "shop"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "shop — Corner shop")
        #expect(lines.contains("  20 × 10 m, 2 beacons, 0.5 m grid, path-loss exponent 3, no walls"))
        #expect(lines.contains("  covered    100.0 % of 200.0 m² at -85 dBm or better"))
        #expect(lines.contains("  dead       0.0 m² below -90 dBm"))
        #expect(lines.contains("    shop-west  100.0 m²"))
        #expect(lines.contains("  ties for nearest (strongest two within 1 dB): 1 region, 10.0 m²"))
        #expect(lines.contains("    shop-west / shop-east  around (9.75, 4.75), 10.0 m², x 9.5–10.5, y 0–10"))
        #expect(result.error.isEmpty)
    }

    @Test("JSON: one summary per map, snake_case keys, numbers as numbers")
    func jsonSummary() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("shop.yaml", manifest)
        let result = await runBeaconctl(["plan", "coverage", file, "--venue", "shop", "--format", "json", "--threshold", "-72"])
        #expect(result.status == 0, "\(result.error)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let maps = try #require(document["maps"] as? [[String: Any]])
        #expect(maps.count == 1)
        let map = try #require(maps.first)
        #expect(map["venue"] as? String == "shop")
        #expect(Set(map.keys) == [
            "venue", "name", "plan", "settings", "beacons", "unplaced_beacons", "coverage", "dead_zones", "crowded",
            "ties", "proximity", "weakest",
        ])
        let settings = try #require(map["settings"] as? [String: Any])
        #expect(settings["threshold"] as? Double == -72)
        #expect(settings["path_loss_exponent"] as? Double == 3)
        let coverage = try #require(map["coverage"] as? [String: Any])
        let percent = try #require(coverage["percent"] as? Double)
        #expect(percent > 0 && percent < 100)
        let ties = try #require(map["ties"] as? [String: Any])
        let regions = try #require(ties["regions"] as? [[String: Any]])
        #expect(regions.first?["beacons"] as? [String] == ["shop-west", "shop-east"])
        for key in ["area", "x", "y", "min_x", "min_y", "max_x", "max_y"] {
            #expect(regions.first?[key] is Double, "\(key)")
        }
        let beacons = try #require(map["beacons"] as? [[String: Any]])
        #expect(beacons.map { $0["id"] as? String } == ["shop-west", "shop-east"])
        #expect(beacons.first?["measured_power"] as? Double == -49)
    }

    @Test("--output-dir writes a well-formed SVG and an HTML page per venue")
    func writesPictures() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("shop.yaml", manifest)
        let walls = try scratch.write("shop.walls", "shop 10,0 10,4 12dB  # half a wall\n")
        let output = scratch.path + "/maps"
        let result = await runBeaconctl(["plan", "coverage", file, "--walls", walls, "--output-dir", output])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("note: venue `stockroom` has no plan and is not mapped"))
        #expect(result.error.contains("wrote \(output)/shop.svg and \(output)/shop.html"))
        #expect(result.output.contains("path-loss exponent 3, 1 wall"))
        let svg = try scratch.read("maps/shop.svg")
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse(), "\(String(describing: parser.parserError))")
        #expect(svg.contains(">shop-west</text>") && svg.contains(">shop-east</text>"))
        let html = try scratch.read("maps/shop.html")
        #expect(html.contains("<h1>Coverage of Corner shop</h1>"))
    }

    @Test("an unknown venue is a usage error listing the venues")
    func unknownVenue() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("shop.yaml", manifest)
        let result = await runBeaconctl(["plan", "coverage", file, "--venue", "shopp"])
        #expect(result.status == 2)
        #expect(result.error == "beaconctl: error: no venue `shopp` in the manifest; venues: shop, stockroom\n")
        #expect(result.output.isEmpty)
    }

    @Test("a venue without a plan says how to add one")
    func venueWithoutPlan() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("shop.yaml", manifest)
        let result = await runBeaconctl(["plan", "coverage", file, "--venue", "stockroom"])
        #expect(result.status == 2)
        #expect(result.error == "beaconctl: error: venue `stockroom` has no plan to map (\(file):14:5); add `plan: {width: W, height: H}` in metres to it\n")
    }

    @Test("a broken walls file is reported at its line and column, exit 2")
    func brokenWalls() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("shop.yaml", manifest)
        let walls = try scratch.write("shop.walls", "shop 10,0 10,4 12dB\nshop 10;0 10,4 12dB\n")
        let result = await runBeaconctl(["plan", "coverage", file, "--walls", walls])
        #expect(result.status == 2)
        #expect(result.error.hasPrefix("\(walls):2:6: error: `10;0` is not a point"))
        #expect(result.error.hasSuffix("beaconctl: error: the walls file \(walls) has 1 error; fix them and map again.\n"))
    }

    @Test("a manifest with errors is not mapped, exit 1")
    func brokenManifest() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("shop.yaml", manifest.replacingOccurrences(of: "minor: 2", with: "minor: 1"))
        let result = await runBeaconctl(["plan", "coverage", file])
        #expect(result.status == 1)
        #expect(result.error.contains("error[duplicate-identity]"))
        #expect(result.output.isEmpty)
    }

    @Test("settings that cannot make a map are usage errors", arguments: [
        (["--resolution", "0"], "the grid resolution must be a positive number of metres; got 0.0"),
        (["--dead-below", "-80"], "the dead-zone level (-80.0 dBm) must not be above the coverage threshold (-85.0 dBm)"),
        (["--crowded", "1"], "a crowded cell needs at least 2 beacons; got 1"),
    ])
    func badSettings(arguments: [String], message: String) async throws {
        let result = await runBeaconctl(["plan", "coverage", exampleFleets] + arguments)
        #expect(result.status == 2)
        #expect(result.error.contains("Cannot map coverage: \(message)."), "\(result.error)")
    }

    @Test("every example venue maps, per floor for the department store")
    func exampleVenues() async throws {
        let all = await runBeaconctl(["plan", "coverage", exampleFleets, "--format", "json"])
        #expect(all.status == 0, "\(all.error)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(all.output.utf8)) as? [String: Any])
        #expect((document["maps"] as? [Any])?.count == 11)
        let floors = await runBeaconctl(["plan", "coverage", exampleFleets + "/department-store.yaml", "--venue", "edinburgh", "--by-zone"])
        #expect(floors.status == 0, "\(floors.error)")
        #expect(floors.output.contains("edinburgh (floor-g) — Beaumont Edinburgh, Princes Street"))
        #expect(floors.output.contains("edinburgh (floor-1) — Beaumont Edinburgh, Princes Street"))
    }
}
