import Foundation
import Testing

@testable import BeaconCLI

@Suite("beaconctl fleet plan")
struct PlanAllocationCommandTests {
    /// A copy of the example fleets to edit.
    func exampleCopy() throws -> ScratchFolder {
        let scratch = try ScratchFolder()
        for name in try FileManager.default.contentsOfDirectory(atPath: exampleFleets) where name.hasSuffix(".yaml") {
            try FileManager.default.copyItem(atPath: exampleFleets + "/" + name, toPath: scratch.path + "/" + name)
        }
        return scratch
    }

    @Test("a new venue is printed as YAML with the next free major")
    func newVenueIsPrinted() async {
        let result = await runBeaconctl([
            "fleet", "plan", "--fleets", exampleFleets, "--fleet", "jays-donuts", "--venue", "store-5",
            "--zones", "entrance,register=2,pickup", "--gap", "1",
        ])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.isEmpty)
        #expect(result.output == """
            # Venue `store-5` of fleet `jays-donuts`: add it to the fleet's `venues:` list,
            # or run again with --append FILE.
              - id: store-5
                major: 5
                beacons:
                  - id: store-5-entrance
                    zone: entrance
                    minor: 1
                  - id: store-5-register-1
                    zone: register
                    minor: 3
                  - id: store-5-register-2
                    zone: register
                    minor: 4
                  - id: store-5-pickup
                    zone: pickup
                    minor: 6

            """)
    }

    @Test("--append writes into the manifest: only new lines, the namespace still valid")
    func appendKeepsEveryOtherByte() async throws {
        let scratch = try exampleCopy()
        let file = scratch.path + "/department-store.yaml"
        let original = try scratch.read("department-store.yaml")
        let result = await runBeaconctl([
            "fleet", "plan", "--fleets", scratch.path, "--venue", "manchester", "--zones", "floor-g=2,floor-3",
            "--beacons", "manchester-lift@floor-1", "--append", file,
        ])
        #expect(result.status == 0, "\(result.error)")
        let uuid = "C8D59134-19CA-4680-88BA-8E5FCD574C9D"
        #expect(result.output == """
            manchester-floor-g-4\tfloor-g\t\(uuid)/114/901
            manchester-floor-g-5\tfloor-g\t\(uuid)/114/902
            manchester-floor-3\tfloor-3\t\(uuid)/114/903
            manchester-lift\tfloor-1\t\(uuid)/114/311

            """)
        #expect(result.error.hasSuffix("added 4 beacons to venue `manchester` in \(file) at line 190\n"), "\(result.error)")

        let edited = try scratch.read("department-store.yaml")
        let originalLines = original.split(separator: "\n", omittingEmptySubsequences: false)
        let editedLines = edited.split(separator: "\n", omittingEmptySubsequences: false)
        // Lines 1…189 and everything after the 12 new lines are the original's, unchanged;
        // the new lines follow the manifest's layout. (The floor-1 beacon continues that
        // zone after its highest minor, 310.)
        #expect(editedLines.count == originalLines.count + 12)
        #expect(Array(editedLines.prefix(189)) == Array(originalLines.prefix(189)))
        #expect(Array(editedLines.suffix(originalLines.count - 189)) == Array(originalLines.suffix(originalLines.count - 189)))
        #expect(editedLines[189...192] == ["      - id: manchester-floor-g-4", "        zone: floor-g", "        minor: 901", "      - id: manchester-floor-g-5"])

        let validation = await runBeaconctl(["fleet", "validate", scratch.path])
        #expect(validation.status == 0)
        #expect(validation.output.hasPrefix("ok: 3 files, 80 beacons"), "\(validation.output)")
    }

    @Test("a new venue appended to a manifest validates and is planned again from it")
    func appendNewVenue() async throws {
        let scratch = try exampleCopy()
        let file = scratch.path + "/museum.yaml"
        let first = await runBeaconctl([
            "fleet", "plan", "--fleets", scratch.path, "--venue", "east-wing", "--venue-name", "East Wing",
            "--plan", "30x20", "--zones", "maps=3,globes=2", "--minor-step", "1", "--align", "100", "--append", file,
        ])
        #expect(first.status == 0, "\(first.error)")
        #expect(first.output.contains("east-wing-maps-1\tmaps\t20E5F07A-9C64-4FB5-A28F-91A58612F4CE/5/100"))
        #expect(first.output.contains("east-wing-globes-2\tglobes\t20E5F07A-9C64-4FB5-A28F-91A58612F4CE/5/201"))
        // Planning again continues where the file now stands.
        let second = await runBeaconctl(["fleet", "plan", "--fleets", scratch.path, "--venue", "east-wing", "--zones", "maps"])
        #expect(second.status == 0, "\(second.error)")
        #expect(second.output.hasSuffix("      - id: east-wing-maps-4\n        zone: maps\n        minor: 103\n"))
        let coverage = await runBeaconctl(["plan", "coverage", file, "--venue", "east-wing"])
        // No positions yet: the venue is mapped empty, and says why.
        #expect(coverage.status == 0)
        #expect(coverage.error.contains("have no position and are left off the map"))
    }

    @Test("a manifest with nothing in it yet takes its first venue")
    func appendToEmptyManifest() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("bakery.yaml", "# Our bakeries.\nversion: 1\nfleet: bakery\nuuid: 3F1E6A52-7C1B-4C0B-9D0F-0B6C2A9B8E11\n")
        let result = await runBeaconctl(["fleet", "plan", "--fleets", scratch.path, "--venue", "bakery-1", "--zones", "door", "--append", file])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == "bakery-1-door\tdoor\t3F1E6A52-7C1B-4C0B-9D0F-0B6C2A9B8E11/1/1\n")
        #expect(try scratch.read("bakery.yaml") == """
            # Our bakeries.
            version: 1
            fleet: bakery
            uuid: 3F1E6A52-7C1B-4C0B-9D0F-0B6C2A9B8E11
            venues:
              - id: bakery-1
                major: 1
                beacons:
                  - id: bakery-1-door
                    zone: door
                    minor: 1

            """)
    }

    @Test("a new fleet gets a whole manifest, which validates")
    func newFleet() async throws {
        let scratch = try ScratchFolder()
        let result = await runBeaconctl([
            "fleet", "plan", "--fleets", exampleFleets, "--fleet", "bakery", "--venue", "bakery-1",
            "--uuid", "3F1E6A52-7C1B-4C0B-9D0F-0B6C2A9B8E11", "--zones", "door,till",
        ])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasPrefix("# A new fleet manifest for `bakery`"))
        let file = try scratch.write("bakery.yaml", result.output)
        let validation = await runBeaconctl(["fleet", "validate", file, exampleFleets])
        #expect(validation.status == 0, "\(validation.output)")
    }

    @Test("refusals are usage errors that say what to do", arguments: [
        (["--fleet", "bakery", "--venue", "b", "--zones", "a"], "no fleet `bakery` in the namespace (fleets: beaumont, jays-donuts, harbourside-museum)"),
        (["--venue", "cupertino", "--zones", "a", "--plan", "10x10"], "venue `cupertino` exists ("),
        (["--venue", "cupertino", "--zones", "a", "--major", "2"], "major 2 is already used by venue `sunnyvale`"),
        (["--venue", "cupertino", "--beacons", "sunnyvale-register"], "beacon id `sunnyvale-register` is taken ("),
        (["--fleet", "beaumont", "--venue", "cupertino", "--zones", "a"], "venue `cupertino` belongs to fleet `jays-donuts`, not `beaumont`"),
    ])
    func refusals(arguments: [String], message: String) async {
        let result = await runBeaconctl(["fleet", "plan", "--fleets", exampleFleets] + arguments)
        #expect(result.status == 2)
        #expect(result.error.hasPrefix("beaconctl: error: " + message), "\(result.error)")
        #expect(result.output.isEmpty)
    }

    @Test("bad options are usage errors", arguments: [
        (["--venue", "x"], "Name what to add"),
        (["--venue", "x", "--zones", "a=0"], "--zones: `a=0` needs a count of 1…10000"),
        (["--venue", "x", "--zones", "a", "--plan", "10 by 5"], "--plan takes WIDTHxHEIGHT"),
        (["--venue", "x", "--zones", "a", "--uuid", "E2C56DB5DFFB48D2B060D0F5A71096E0"], "--uuid `E2C56DB5DFFB48D2B060D0F5A71096E0` is not a UUID"),
    ])
    func badOptions(arguments: [String], message: String) async {
        let result = await runBeaconctl(["fleet", "plan", "--fleets", exampleFleets] + arguments)
        #expect(result.status == 2)
        #expect(result.error.contains(message), "\(result.error)")
    }

    @Test("a namespace with errors is not allocated in, exit 1")
    func brokenNamespace() async throws {
        let scratch = try ScratchFolder()
        try scratch.write("shop.yaml", validManifest.replacingOccurrences(of: "minor: 2", with: "minor: 1"))
        let result = await runBeaconctl(["fleet", "plan", "--fleets", scratch.path, "--venue", "shop", "--zones", "a"])
        #expect(result.status == 1)
        #expect(result.error.contains("error[duplicate-identity]"))
    }
}
