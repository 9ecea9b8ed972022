import BeaconCore
import Foundation
import Glibc
import Testing

/// A real Prometheus (Debian's package) scrapes `verify --watch --metrics` while a store's
/// box publishes to a real Mosquitto: the beacon counts by state read back through
/// Prometheus's HTTP API are the watch's, and `promtool` finds the exposition clean
/// (docs/operations.md, "Metrics").
@Suite(
    "Prometheus scrapes verify --watch --metrics",
    .enabled(if: PrometheusServer.shouldRun && MosquittoBroker.shouldRun), .timeLimit(.minutes(4)))
struct PrometheusScrapeTests {
    /// The restart tests' chain, with a third beacon the box never hears: two `ok`, one `missing`.
    static let manifest = """
        version: 1
        fleet: metrics-chain
        uuid: \(WatchBrokerRestartTests.uuid)
        defaults:
          measured_power: -59
          interval_ms: 100
        venues:
          - id: store
            major: 3
            beacons:
              - {id: front, minor: 1}
              - {id: back, minor: 2}
              - {id: side, minor: 3}
        """

    /// The port of the watch's metrics, from its line on standard error.
    static func metricsPort(_ standardError: String) -> UInt16? {
        guard let start = standardError.range(of: "metrics: serving http://127.0.0.1:") else { return nil }
        let digits = standardError[start.upperBound...].prefix { $0.isNumber }
        return UInt16(digits)
    }

    @Test("the beacon counts by state reach Prometheus; promtool check metrics is clean")
    func scrapeWatch() async throws {
        // Under CI=true a missing Prometheus fails here rather than skipping.
        _ = try PrometheusServer.binary.get()
        _ = try PrometheusServer.promtool.get()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("watch-metrics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifestFile = folder.appendingPathComponent("chain.yaml")
        try Self.manifest.write(to: manifestFile, atomically: true, encoding: .utf8)

        try await withMosquitto { broker in
            let watchID = "watch-\(UUID().uuidString.prefix(8))"
            let watch = try BeaconctlProcess(
                [
                    "verify", manifestFile.path, "--watch", "--input", broker.url, "--silence", "2", "--format", "jsonl",
                    "--metrics", "127.0.0.1:0",
                ],
                environment: ["BEACONCTL_MQTT_CLIENT_ID_PREFIX": watchID])
            try await watch.waitForError(containing: "/metrics")
            let port = try #require(Self.metricsPort(watch.standardError), "\(watch.standardError)")
            try await MQTTCommandTests.waitForSubscription(broker, clientID: watchID)
            let box = try WatchBrokerRestartTests.StoreBox(broker)

            let expected = ["front": "ok", "back": "ok", "side": "missing"]
            let reached = await watch.waitForOutput("front and back ok, side missing") { WatchBrokerRestartTests.states($0) == expected }
            #expect(reached, "\(watch.standardOutput)\(watch.standardError)")

            // The exposition as served, checked by Prometheus's own linter. The watch copies its
            // counters at its ticks (twice a second), so the change just printed may be a tick
            // away from the exposition: it is read again until it shows it.
            var exposition = try await LoopbackHTTP.get(port: port, "/metrics")
            let shown = ContinuousClock.now + .seconds(60)
            while !exposition.text.contains("beaconctl_watch_beacons{state=\"missing\"} 1") && ContinuousClock.now < shown {
                try await Task.sleep(for: .milliseconds(100))
                exposition = try await LoopbackHTTP.get(port: port, "/metrics")
            }
            #expect(exposition.status == 200)
            #expect(exposition.head.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8"), "\(exposition.head)")
            let lint = try await PrometheusServer.checkMetrics(exposition.text)
            #expect(lint.status == 0 && lint.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "promtool: \(lint.output)\n\(exposition.text)")
            #expect(exposition.text.contains("beaconctl_watch_beacons{state=\"ok\"} 2"), "\(exposition.text)")

            try await withPrometheus(scraping: "127.0.0.1:\(port)") { prometheus in
                // Prometheus's API has no event to wait on: it is asked every 250 ms until the
                // counts of a scrape are there, within a deadline only a hang reaches.
                var counts: [String: Double] = [:]
                let deadline = ContinuousClock.now + .seconds(90)
                while ContinuousClock.now < deadline {
                    counts = Dictionary(
                        try await prometheus.query("beaconctl_watch_beacons").compactMap { series in series.labels["state"].map { ($0, series.value) } },
                        uniquingKeysWith: { first, _ in first })
                    if counts["ok"] == 2 && counts["missing"] == 1 { break }
                    try await Task.sleep(for: .milliseconds(250))
                }
                #expect(counts["ok"] == 2 && counts["missing"] == 1, "\(counts)\n\(prometheus.logTail())")
                // Every state has its series, 0 included, so that an alert on one finds it.
                #expect(counts["wrong-power"] == 0 && counts["duplicate"] == 0 && counts["unknown"] == 0, "\(counts)")
                let up = try await prometheus.query("beaconctl_input_up")
                #expect(up.map(\.value) == [1], "\(up)")
                let sightings = try await prometheus.query("beaconctl_watch_sightings_total")
                #expect((sightings.first?.value ?? 0) > 0, "\(sightings)")
                let build = try await prometheus.query("beaconctl_build_info")
                #expect(build.first?.labels["command"] == "verify --watch", "\(build)")
            }

            await box.stop()
            watch.signal(SIGTERM)
            #expect(await watch.waitForExit() == 0, "\(watch.standardError)")
        }
    }

    @Test("a beacon's battery reaches Prometheus: its volts by beacon and venue, the low ones by venue")
    func scrapeBatteries() async throws {
        _ = try PrometheusServer.binary.get()
        _ = try PrometheusServer.promtool.get()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("watch-battery-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifestFile = folder.appendingPathComponent("chain.yaml")
        try Self.manifest.replacingOccurrences(of: "  interval_ms: 100\n", with: "  interval_ms: 100\n  battery_low: 2.5V\n")
            .write(to: manifestFile, atomically: true, encoding: .utf8)
        // A pipe: the watch listens live, the test writes a box's sightings and TLM readings.
        let input = Pipe()
        let watch = try BeaconctlProcess(
            ["verify", manifestFile.path, "--watch", "--input", "-", "--silence", "60", "--format", "jsonl", "--metrics", "127.0.0.1:0"],
            standardInput: input)
        try await watch.waitForError(containing: "/metrics")
        let port = try #require(Self.metricsPort(watch.standardError), "\(watch.standardError)")
        let now = Date().timeIntervalSince1970
        var lines = ""
        for (minor, millivolts) in [(1, 2410), (2, 2980)] {
            let address = "C0:00:00:00:00:0\(minor)"
            lines += #"{"uuid":"\#(WatchBrokerRestartTests.uuid)","major":3,"minor":\#(minor),"measured_power":-59,"address":"\#(address)","address_random":true,"rssi":-70,"time":\#(now),"clock":"unix","receiver":"box"}"# + "\n"
            lines += #"{"telemetry":1,"source":"eddystone-tlm","address":"\#(address)","address_random":true,"battery_mv":\#(millivolts),"battery_percent":null,"temperature":21.5,"time":\#(now + 0.1),"clock":"unix","receiver":"box"}"# + "\n"
        }
        input.fileHandleForWriting.write(Data(lines.utf8))
        let low = await watch.waitForOutput("front battery-low") { output in
            output.contains { $0.contains(#""event":"battery-low""#) && $0.contains(#""beacon":"front""#) }
        }
        #expect(low, "\(watch.standardOutput)\(watch.standardError)")

        // The watch copies its counters at its ticks: read again until the reading shows.
        var exposition = try await LoopbackHTTP.get(port: port, "/metrics")
        let shown = ContinuousClock.now + .seconds(60)
        while !exposition.text.contains("beaconctl_beacons_battery_low{venue=\"store\"} 1") && ContinuousClock.now < shown {
            try await Task.sleep(for: .milliseconds(100))
            exposition = try await LoopbackHTTP.get(port: port, "/metrics")
        }
        let lint = try await PrometheusServer.checkMetrics(exposition.text)
        #expect(lint.status == 0 && lint.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "promtool: \(lint.output)\n\(exposition.text)")
        try await withPrometheus(scraping: "127.0.0.1:\(port)") { prometheus in
            // Asked every 250 ms until a scrape is there, within a deadline only a hang reaches.
            var volts: [String: Double] = [:]
            var lowByVenue: [String: Double] = [:]
            let deadline = ContinuousClock.now + .seconds(90)
            while ContinuousClock.now < deadline {
                volts = Dictionary(
                    try await prometheus.query("beaconctl_beacon_battery_volts").compactMap { series in
                        series.labels["venue"] == "store" ? series.labels["beacon"].map { ($0, series.value) } : nil
                    }, uniquingKeysWith: { first, _ in first })
                lowByVenue = Dictionary(
                    try await prometheus.query("beaconctl_beacons_battery_low").compactMap { series in series.labels["venue"].map { ($0, series.value) } },
                    uniquingKeysWith: { first, _ in first })
                if volts.count == 2 && lowByVenue["store"] != nil { break }
                try await Task.sleep(for: .milliseconds(250))
            }
            #expect(volts == ["front": 2.41, "back": 2.98], "\(volts)\n\(prometheus.logTail())")
            #expect(lowByVenue == ["store": 1], "\(lowByVenue)")
            let readings = try await prometheus.query("beaconctl_telemetry_readings_total")
            #expect(readings.first { $0.labels["paired"] == "true" }?.value == 2, "\(readings)")
        }
        watch.signal(SIGTERM)
        #expect(await watch.waitForExit() == 0, "\(watch.standardError)")
        try? input.fileHandleForWriting.close()
    }

    @Test("the alert rules of docs/operations.md pass promtool check rules")
    func alertRules() async throws {
        _ = try PrometheusServer.promtool.get()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let page = try String(contentsOf: root.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        // The one YAML block that starts with `groups:`.
        let blocks = page.components(separatedBy: "```yaml\n").dropFirst().map { $0.components(separatedBy: "\n```")[0] }
        let rules = try #require(blocks.first { $0.hasPrefix("groups:") }, "docs/operations.md has no ```yaml block of rules")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("beaconctl-rules-\(UUID().uuidString).yml")
        try (rules + "\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let check = try await PrometheusServer.checkRules(file.path)
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("SUCCESS"), "\(check.output)")
    }
}
