import BeaconFleet
import BeaconTestKit
import Foundation
import MetricsExposition
import Testing

@testable import BeaconCLI

/// `--metrics [ADDRESS:]PORT` on the command line (docs/operations.md, "Metrics").
@Suite("beaconctl --metrics")
struct MetricsOptionTests {
    @Test(
        "a value that is not [ADDRESS:]PORT is a usage error naming it, for every command that takes it",
        arguments: [["scan", "--input", "x.jsonl"], ["monitor", "--region", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "--input", "x.jsonl"],
                    ["advertise", "--uuid", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "--major", "1", "--minor", "1"],
                    ["verify", "shop.yaml", "--watch", "--input", "x.jsonl"]])
    func badValue(_ command: [String]) async {
        for value in ["70000", "localhost:9464", "::1:9464"] {
            let result = await runBeaconctl(command + ["--metrics", value])
            #expect(result.status == 2, "\(command) \(value): \(result.error)")
            #expect(result.error.contains("--metrics \(value) is not [ADDRESS:]PORT"), "\(result.error)")
        }
    }

    @Test("verify without --watch refuses --metrics: a one-shot pass ends before anyone scrapes it")
    func oneShot() async {
        let result = await runBeaconctl(["verify", "shop.yaml", "--input", "x.jsonl", "--metrics", "9464"])
        #expect(result.status == 2)
        #expect(result.error.contains("--metrics only applies with --watch"), "\(result.error)")
    }

    @Test("the watch of a recording says where its metrics are, and ends as without them")
    func served() async throws {
        let recording = VerifyCommandTests.recording(VerifyWatchCommandTests.wholeShop(through: 70))
        let result = try await VerifyWatchCommandTests.watch(recording, ["--metrics", "127.0.0.1:0", "--format", "jsonl"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("metrics: serving http://127.0.0.1:"), "\(result.error)")
        #expect(!result.error.contains("http://127.0.0.1:0/"), "the port the kernel chose is said, not 0")
    }

    @Test("a port in use is exit status 3, naming the address and what to do")
    func portInUse() async throws {
        let holder = try MetricsResponder(MetricsListenAddress(parsing: "127.0.0.1:0")) { "" }
        defer { holder.stop() }
        let recording = VerifyCommandTests.recording(VerifyWatchCommandTests.wholeShop(through: 70))
        let result = try await VerifyWatchCommandTests.watch(recording, ["--metrics", "127.0.0.1:\(holder.address.port)"])
        #expect(result.status == 3, "\(result.error)")
        #expect(result.error.contains("--metrics 127.0.0.1:\(holder.address.port) is already in use"), "\(result.error)")
        #expect(result.output.isEmpty, "nothing is judged before the metrics are served")
    }

    @Test("the watch's beacon series: one per state, 0 included, and unknown")
    func beaconSeries() {
        var statistics = AuditStatistics()
        statistics.beaconStates = [.ok: 3, .missing: 1]
        statistics.unknownBeacons = 2
        statistics.unexpectedNow = 1
        let samples = MetricsServing.beaconSamples(statistics)
        let byState = Dictionary(uniqueKeysWithValues: samples.map { ($0.labels[0].value, $0.value) })
        #expect(byState == ["ok": 3, "missing": 1, "wrong-power": 0, "duplicate": 0, "unexpected": 1, "gone": 0, "unknown": 2])
        #expect(samples.count == AuditState.allCases.count + 1)
    }
}
