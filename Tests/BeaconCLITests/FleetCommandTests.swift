import Foundation
import Testing
@testable import BeaconCLI

/// A scratch folder removed when the test ends.
final class ScratchFolder {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "beaconctl-cli-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    func read(_ name: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: path + "/" + name)), as: UTF8.self)
    }
}

/// The repository's `fleets/` folder, found from this file's path.
let exampleFleets: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("fleets").path
}()

let validManifest = """
    version: 1
    fleet: corner-shop
    uuid: 04F6CBA0-321A-40F4-BDE2-A613959BBF4B
    venues:
      - id: shop
        major: 1
        beacons:
          - id: door
            minor: 1
          - id: till
            minor: 2
    """

@Suite("beaconctl fleet")
struct FleetCommandTests {
    @Test func exampleFleetsValidateCleanly() async {
        let result = await runBeaconctl(["fleet", "validate", exampleFleets])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.hasPrefix("ok: 3 files, "))
        #expect(result.output.hasSuffix(": 0 errors, 0 warnings\n"))
    }

    @Test func findingsAreReportedAtTheirPositionsWithExitOne() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("shop.yaml", validManifest.replacingOccurrences(of: "minor: 2", with: "minor: 1"))
        let result = await runBeaconctl(["fleet", "validate", file])
        #expect(result.status == 1)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("\(file):10:9: error[duplicate-identity]: beacon `till`") == true)
        #expect(lines.dropFirst().first?.hasPrefix("\(file):8:9: note: ") == true)
        #expect(lines.last == "1 file, 1 beacon in 1 venue, 0 regions: 1 error, 0 warnings")
    }

    @Test func strictTurnsWarningsIntoErrors() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("shop.yaml", validManifest + "\n        interval_ms: 50\n")
        let lenient = await runBeaconctl(["fleet", "validate", file])
        #expect(lenient.status == 0)
        #expect(lenient.output.contains("warning[low-interval]") || lenient.output.contains("warning["))
        let strict = await runBeaconctl(["fleet", "validate", "--strict", file])
        #expect(strict.status == 1)
        #expect(!strict.output.contains("warning["))
        #expect(strict.output.contains("error["))
    }

    @Test func jsonReportCarriesCodesAndPositions() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("shop.yaml", validManifest.replacingOccurrences(of: "minor: 2", with: "minr: 2"))
        let result = await runBeaconctl(["fleet", "validate", "--format", "json", file])
        #expect(result.status == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let diagnostics = try #require(report["diagnostics"] as? [[String: Any]])
        let codes = diagnostics.compactMap { $0["code"] as? String }
        #expect(codes.contains("unknown-field"))
        let unknown = try #require(diagnostics.first { $0["code"] as? String == "unknown-field" })
        #expect(unknown["hint"] as? String == "did you mean `minor`?")
        let location = try #require(unknown["location"] as? [String: Any])
        #expect(location["line"] as? Int == 11)
        #expect(location["column"] as? Int == 9)
        let summary = try #require(report["summary"] as? [String: Any])
        #expect(summary["errors"] as? Int == diagnostics.filter { $0["severity"] as? String == "error" }.count)
    }

    @Test func unreadableInputExitsTwo() async {
        let result = await runBeaconctl(["fleet", "validate", "/nonexistent/fleet.yaml"])
        #expect(result.status == 2)
        #expect(result.output.contains("/nonexistent/fleet.yaml"))
    }

    @Test func missingPathIsAUsageError() async {
        let result = await runBeaconctl(["fleet", "validate"])
        #expect(result.status == 2)
        #expect(result.error.contains("Name at least one manifest file or folder"))
    }

    @Test func colourOnlyWhenAsked() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("shop.yaml", validManifest.replacingOccurrences(of: "minor: 2", with: "minor: 1"))
        let plain = await runBeaconctl(["fleet", "validate", file], terminal: true, environment: ["NO_COLOR": "1"])
        #expect(!plain.output.contains("\u{1B}["))
        let coloured = await runBeaconctl(["fleet", "validate", file], terminal: true)
        #expect(coloured.output.contains("\u{1B}[1;31merror\u{1B}[0m[duplicate-identity]"))
    }

    @Test func exportThenImportRoundTrips() async throws {
        let scratch = try ScratchFolder()
        try scratch.write("shop.yaml", validManifest)
        let exported = await runBeaconctl(["fleet", "export", scratch.path + "/shop.yaml"])
        #expect(exported.status == 0)
        #expect(exported.output.hasPrefix("fleet,venue,beacon,name,zone,uuid,major,minor,"))
        try scratch.write("shop.csv", exported.output)
        let imported = await runBeaconctl(["fleet", "import", scratch.path + "/shop.csv", "-o", scratch.path + "/back.yaml"])
        #expect(imported.status == 0, "\(imported.error)")
        let reexported = await runBeaconctl(["fleet", "export", scratch.path + "/back.yaml"])
        #expect(reexported.output == exported.output)
        // A second import to the same file is refused without --force.
        let again = await runBeaconctl(["fleet", "import", scratch.path + "/shop.csv", "-o", scratch.path + "/back.yaml"])
        #expect(again.status == 2)
        #expect(again.error.contains("pass --force"))
    }

    @Test("--output is written whole through a temporary file beside it, never left behind; an unwritable place is named, exit 2")
    func outputIsAtomic() async throws {
        let scratch = try ScratchFolder()
        try scratch.write("shop.yaml", validManifest)
        let target = scratch.path + "/beacons.csv"
        try scratch.write("beacons.csv", "an older export\n")
        let exported = await runBeaconctl(["fleet", "export", scratch.path + "/shop.yaml", "--output", target])
        #expect(exported.status == 0, "\(exported.error)")
        let written = try String(contentsOfFile: target, encoding: .utf8)
        #expect(written.hasPrefix("fleet,venue,beacon,name,zone,uuid,major,minor,"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["beacons.csv", "shop.yaml"])

        let nowhere = scratch.path + "/no-such-folder/beacons.csv"
        let refused = await runBeaconctl(["fleet", "export", scratch.path + "/shop.yaml", "--output", nowhere])
        #expect(refused.status == 2)
        #expect(refused.error.contains("no-such-folder"), "\(refused.error)")
    }

    @Test func exportRefusesABrokenManifest() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("shop.yaml", validManifest.replacingOccurrences(of: "minor: 2", with: "minor: 70000"))
        let result = await runBeaconctl(["fleet", "export", "--format", "json", file])
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(result.error.contains("error[value-out-of-range]") || result.error.contains("error["))
        #expect(result.error.contains("fix them first"))
    }

    @Test func importOfSeveralFleetsNeedsAnOutputFolder() async throws {
        let scratch = try ScratchFolder()
        let exported = await runBeaconctl(["fleet", "export", exampleFleets])
        try scratch.write("all.csv", exported.output)
        let toStdout = await runBeaconctl(["fleet", "import", scratch.path + "/all.csv"])
        #expect(toStdout.status == 2)
        #expect(toStdout.error.contains("--output-dir"))
        let toFolder = await runBeaconctl(["fleet", "import", scratch.path + "/all.csv", "--output-dir", scratch.path + "/out"])
        #expect(toFolder.status == 0)
        let revalidated = await runBeaconctl(["fleet", "validate", scratch.path + "/out"])
        #expect(revalidated.status == 0, "\(revalidated.output)")
    }
}
