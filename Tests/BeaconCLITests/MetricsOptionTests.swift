import BeaconCore
import BeaconFleet
import BeaconTestKit
import Foundation
import MetricsExposition
import Synchronization
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
        #expect(byState["ok"] == 3 && byState["missing"] == 1 && byState["unexpected"] == 1 && byState["unknown"] == 2, "\(byState)")
        for state in AuditState.allCases where ![.ok, .missing, .unexpected].contains(state) {
            #expect(byState[state.rawValue] == 0, "\(state)")
        }
        #expect(samples.count == AuditState.allCases.count + 1)
    }
}

/// The series of `advertise --metrics` and `monitor --metrics`, fed events as the commands
/// feed them.
@Suite("advertise and monitor metrics")
struct CommandMetricsTests {
    static func serving() throws -> MetricsServing {
        try #require(try MetricsServing.start(
            MetricsOptions.parse(["--metrics", "127.0.0.1:0"]), command: "test", logger: GlobalOptions.parse([]).makeLogger()))
    }

    static func lines(_ serving: MetricsServing, _ prefix: String) -> [String] {
        serving.registry.exposition().split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix) }
    }

    @Test("advertise: on the air, off after a fault, back after a restart; failures counted")
    func advertise() throws {
        let serving = try Self.serving()
        defer { serving.stop() }
        let metrics = AdvertiseMetrics(serving)
        #expect(Self.lines(serving, "beaconctl_advertising_up ") == ["beaconctl_advertising_up 0"])
        var session = try AdvertiseOutputTests.session()
        metrics.note(.started(session))
        #expect(Self.lines(serving, "beaconctl_advertising_beacons ") == ["beaconctl_advertising_beacons 2"])
        metrics.note(.interrupted(.unsolicitedReset(controller: "hci0"), retryIn: .seconds(1)))
        metrics.note(.restartFailed("hci0 is gone", attempt: 1, retryIn: .seconds(2)))
        #expect(Self.lines(serving, "beaconctl_advertising_up ") == ["beaconctl_advertising_up 0"])
        session.restartCount = 1
        metrics.note(.started(session))
        #expect(Self.lines(serving, "beaconctl_advertising_") == [
            "beaconctl_advertising_beacons 2", "beaconctl_advertising_interruptions_total 1",
            "beaconctl_advertising_restart_failures_total 1", "beaconctl_advertising_restarts_total 1", "beaconctl_advertising_up 1",
        ])
    }

    @Test("monitor: events by kind, regions by the state their latest event left")
    func monitor() throws {
        let serving = try Self.serving()
        defer { serving.stop() }
        let uuid = try ProximityUUID(parsing: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")
        let regions = try ["door", "till"].map { MonitoredRegion(region: try #require(BeaconRegion(identifier: $0, uuid: uuid))) }
        let sink = MonitorMetricsSink(serving, regions: regions)
        #expect(Self.lines(serving, "beaconctl_monitor_regions{") == [
            #"beaconctl_monitor_regions{state="inside"} 0"#, #"beaconctl_monitor_regions{state="outside"} 0"#,
            #"beaconctl_monitor_regions{state="unknown"} 2"#,
        ])
        sink.report([RegionEvent(kind: .enter, regionIdentifier: "door", state: .inside, time: .seconds(1), beacons: [])])
        sink.report([RegionEvent(kind: .exit, regionIdentifier: "door", state: .outside, time: .seconds(40), beacons: [])])
        sink.report([RegionEvent(kind: .state, regionIdentifier: "till", state: .inside, time: .seconds(41), beacons: [])])
        #expect(Self.lines(serving, "beaconctl_monitor_") == [
            #"beaconctl_monitor_region_events_total{kind="enter"} 1"#, #"beaconctl_monitor_region_events_total{kind="exit"} 1"#,
            #"beaconctl_monitor_region_events_total{kind="state"} 1"#,
            #"beaconctl_monitor_regions{state="inside"} 1"#, #"beaconctl_monitor_regions{state="outside"} 1"#,
            #"beaconctl_monitor_regions{state="unknown"} 0"#,
        ])
    }

    /// The count the closing warning says ("N reports lost between the controller and the
    /// output"): the scan's own queues and the reading's, never one without the other.
    @Test("scan: sightings lost count the scan's queues and the run's reading alike, as the warning at the end does")
    func scanLosses() throws {
        let serving = try Self.serving()
        defer { serving.stop() }
        let scanQueues = Mutex(0)
        let loss = ScanLoss { scanQueues.withLock { $0 } }
        serving.registerScan(sightings: { 12 }, loss: loss, broker: [], publisher: nil)
        #expect(Self.lines(serving, "beaconctl_scan_sightings") == [
            "beaconctl_scan_sightings_lost_total 0", "beaconctl_scan_sightings_total 12",
        ])
        scanQueues.withLock { $0 = 4 }
        loss.reading.add(3)
        #expect(Self.lines(serving, "beaconctl_scan_sightings_lost_total ") == ["beaconctl_scan_sightings_lost_total 7"])
        #expect(loss.count == 7)
    }

    @Test("scan of a recording: no lost series, there is no controller to lose anything")
    func scanOfARecording() throws {
        let serving = try Self.serving()
        defer { serving.stop() }
        serving.registerScan(sightings: { 5 }, loss: nil, broker: [], publisher: nil)
        #expect(Self.lines(serving, "beaconctl_scan_") == ["beaconctl_scan_sightings_total 5"])
    }
}
