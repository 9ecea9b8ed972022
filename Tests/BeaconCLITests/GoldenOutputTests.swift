import Foundation
import Testing

@testable import BeaconCLI

/// The outputs of the commands that read sightings (verify, verify --watch, monitor, scan,
/// calibrate), byte for byte, on the recordings in `Golden/Inputs` and the repository's
/// manifests and captures: a change of any output shows here as a diff to review.
///
/// After a change on purpose, write the files again and review them with `git diff`:
///
///     BEACONCTL_UPDATE_GOLDEN=1 swift test --filter GoldenOutputTests
///
/// Each case keeps its standard output in `Golden/<name>.out`, its exit status and standard
/// error (when not empty) in `Golden/<name>.err`, and a file it writes (a receiver profile)
/// in `Golden/<name>.<file>`.
@Suite("golden outputs")
struct GoldenOutputTests {
    /// One run of `beaconctl` and the name of its golden files.
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        var testDescription: String { name }
    }

    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    static let repository = golden.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let inputs = golden.appendingPathComponent("Inputs").path
    static let fleet = repository.appendingPathComponent("fleets/jays-donuts.yaml").path
    static let captures = repository.appendingPathComponent("Tests/BeaconFleetTests/Fixtures").path

    /// Where a case may write (calibrate --walk's profile); named in outputs as `$SCRATCH`.
    static let scratchToken = "$SCRATCH"

    static let cupertino = inputs + "/cupertino.jsonl"
    static let twoStores = inputs + "/two-stores.jsonl"
    static let walk = ["0.5", "1", "2", "3", "5"].flatMap { ["--input", inputs + "/walk-\($0)m.jsonl"] }

    static let cases: [Case] = {
        var cases: [Case] = []
        func add(_ name: String, _ arguments: [String]) { cases.append(Case(name: name, arguments: arguments)) }

        let cupertinoPass = ["verify", fleet, "--venue", "cupertino", "--input", cupertino]
        for format in ["text", "json", "junit", "markdown"] {
            add("verify-cupertino-\(format)", cupertinoPass + ["--format", format])
            add("verify-two-stores-\(format)", ["verify", fleet, "--input", twoStores, "--format", format])
        }
        add("verify-bumble-pcap-text", ["verify", fleet, "--input", captures + "/bumble-ibeacon.pcap"])
        add("verify-tshark-pcapng-json", ["verify", fleet, "--input", captures + "/tshark-ibeacon.pcapng", "--format", "json"])

        for format in ["text", "jsonl"] {
            add("watch-cupertino-\(format)", cupertinoPass + ["--watch", "--silence", "10", "--format", format])
            add("watch-two-stores-\(format)", ["verify", fleet, "--watch", "--silence", "5", "--input", twoStores, "--format", format])
        }

        for format in ["text", "jsonl"] {
            add("monitor-cupertino-\(format)", ["monitor", "--manifest", fleet, "--input", cupertino, "--exit-period", "5", "--format", format])
            add("monitor-cupertino-range-\(format)", [
                "monitor", "--manifest", fleet, "--input", cupertino, "--range", "--no-profile", "--format", format,
            ])
            add("monitor-two-stores-\(format)", [
                "monitor", "--region", "chain=89D6E936-F61F-4227-BCD2-6E94C5A6B2E3", "--region",
                "sunnyvale=89D6E936-F61F-4227-BCD2-6E94C5A6B2E3/2", "--notify-state-on-start", "--input", twoStores,
                "--state-every", "5", "--format", format,
            ])
        }

        for format in ["text", "jsonl"] {
            add("scan-cupertino-\(format)", ["scan", "--input", cupertino, "--manifest", fleet, "--no-profile", "--format", format])
            add("scan-two-stores-\(format)", ["scan", "--input", twoStores, "--no-profile", "--format", format])
        }
        add("scan-bumble-pcap-jsonl", ["scan", "--input", captures + "/bumble-ibeacon.pcap", "--no-profile", "--format", "jsonl"])
        add("scan-tshark-pcapng-text", ["scan", "--input", captures + "/tshark-ibeacon.pcapng", "--no-profile", "--format", "text"])

        add("calibrate-register-text", ["calibrate", "cupertino-register", "--manifest", fleet, "--input", inputs + "/walk-1m.jsonl"])
        add("calibrate-walk-text", [
            "calibrate", "cupertino-register", "--manifest", fleet, "--walk", "0.5,1,2,3,5", "--place", "counter",
            "--profile", scratchToken + "/profile.json",
        ] + walk)
        return cases
    }()

    @Test(arguments: cases)
    func output(of golden: Case) async throws {
        let scratch = try ScratchFolder()
        let arguments = golden.arguments.map { $0.replacingOccurrences(of: Self.scratchToken, with: scratch.path) }
        // Not a terminal, no colour; a config folder of its own, so no saved profile is read.
        let result = await runBeaconctl(
            arguments, environment: ["XDG_CONFIG_HOME": scratch.path + "/config", "HOME": scratch.path, "NO_COLOR": "1"])
        let output = Self.normalised(result.output, scratch: scratch.path)
        var errorSide = "exit status \(result.status)\n"
        if !result.error.isEmpty { errorSide += Self.normalised(result.error, scratch: scratch.path) }
        try Self.compare(output, with: golden.name + ".out")
        try Self.compare(errorSide, with: golden.name + ".err")
        // What a case writes besides its output (calibrate --walk's receiver profile).
        for written in (try? FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted()) ?? [] where written.hasSuffix(".json") {
            let text = Self.withoutFittingDate(Self.normalised(try scratch.read(written), scratch: scratch.path))
            try Self.compare(text, with: "\(golden.name).\(written)")
        }
        _ = scratch
    }

    /// The only run-dependent parts of these outputs: the paths of the repository's
    /// checkout and of the scratch folder, which differ between machines and runs.
    static func normalised(_ text: String, scratch: String) -> String {
        text.replacingOccurrences(of: scratch, with: scratchToken)
            .replacingOccurrences(of: repository.path, with: "$REPOSITORY")
    }

    /// A receiver profile's `fitted_at` is the wall-clock time of the fit (no option sets
    /// it): its value, and only its value, becomes `$DATE`. It must still be an ISO 8601
    /// UTC time, or it stays as it is and the comparison shows it.
    static func withoutFittingDate(_ profile: String) -> String {
        profile.replacing(#/"fitted_at" : "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"/#, with: #""fitted_at" : "$DATE""#)
    }

    static var updating: Bool { ProcessInfo.processInfo.environment["BEACONCTL_UPDATE_GOLDEN"] == "1" }

    static func compare(_ actual: String, with file: String) throws {
        let url = golden.appendingPathComponent(file)
        if updating {
            try Data(actual.utf8).write(to: url)
            return
        }
        guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
            Issue.record("Golden/\(file) is missing: write it with BEACONCTL_UPDATE_GOLDEN=1 swift test --filter GoldenOutputTests")
            return
        }
        if actual != expected {
            Issue.record("Golden/\(file) differs (- golden, + now); if the change is meant, write it again with BEACONCTL_UPDATE_GOLDEN=1:\n\(lineDiff(expected, actual))")
        }
    }

    /// The lines that differ, with their numbers, at most 40 of them; a difference in line
    /// ends or a final newline is named, since it is invisible in the lines themselves.
    static func lineDiff(_ expected: String, _ actual: String) -> String {
        let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
        var shown: [String] = []
        for index in 0..<max(old.count, new.count) {
            let before = index < old.count ? String(old[index]) : nil
            let after = index < new.count ? String(new[index]) : nil
            guard before != after else { continue }
            if shown.count >= 40 {
                shown.append("… and more")
                break
            }
            if let before { shown.append("\(index + 1)- \(before.debugDescription)") }
            if let after { shown.append("\(index + 1)+ \(after.debugDescription)") }
        }
        if shown.isEmpty { shown.append("(the same lines; the bytes differ in line ends)") }
        return shown.joined(separator: "\n")
    }
}
