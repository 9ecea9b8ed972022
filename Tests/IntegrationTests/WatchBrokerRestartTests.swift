import BeaconCore
import BeaconFleet
import BeaconMQTT
import Foundation
import Glibc
import Synchronization
import Testing

/// `verify --watch --input mqtt://…` while its broker is stopped and started again, as
/// routine maintenance does: the watch says its input is lost and back, and judges no
/// beacon by the silence of a broker (docs/verify.md, "Input health"). A store's box is
/// played by a client of this test publishing the box's sightings.
@Suite("verify --watch through a broker that restarts", .enabled(if: MosquittoBroker.shouldRun), .timeLimit(.minutes(3)))
struct WatchBrokerRestartTests {
    static let uuid = "5A4BCFCE-174E-4BAC-A814-092E77F6B7E5"
    static let silence = 3.0

    static let manifest = """
        version: 1
        fleet: restart-chain
        uuid: \(uuid)
        defaults:
          measured_power: -59
          interval_ms: 100
        venues:
          - id: store
            major: 3
            beacons:
              - {id: front, minor: 1}
              - {id: back, minor: 2}
        """

    /// A store's box: both beacons heard every 100 ms, published in Unix time to the
    /// broker until stopped. Its client retries the broker every second, like the watch's.
    final class StoreBox: Sendable {
        let client: MQTTClient
        /// Messages published so far, counted from the publishing task.
        private final class Count: Sendable {
            let value = Atomic<Int>(0)
        }

        /// The minors still sent (a beacon switched off leaves them).
        private final class Shared: Sendable {
            let minors: Mutex<Set<UInt16>>
            init(_ minors: Set<UInt16>) { self.minors = Mutex(minors) }
        }

        /// Set to end the publishing thread.
        private final class Flag: Sendable {
            let value = Atomic<Bool>(false)
        }

        private let published = Count()
        private let sending: Shared
        private let stopRequested = Flag()
        /// Ends when the publishing thread has.
        private let ended: AsyncStream<Void>
        /// The count after each message, the latest only.
        private let counts: AsyncStream<Int>

        var publishedCount: Int { published.value.load(ordering: .relaxed) }

        /// The beacon with this minor leaves the air.
        func switchOff(minor: UInt16) { sending.minors.withLock { _ = $0.remove(minor) } }

        /// Resumes once more than `count` messages were published.
        func waitUntilPublished(moreThan count: Int) async {
            for await published in counts where published > count { return }
        }

        /// `receiver` publishes the beacons of venue `store` (major 3) with these minors.
        init(_ broker: MosquittoBroker, receiver: String = "store-a", minors: [UInt16] = [1, 2]) throws {
            sending = Shared(Set(minors))
            var configuration = MQTTClient.Configuration(clientID: "box-\(UUID().uuidString.prefix(8))")
            configuration.maximumReconnectDelaySeconds = 1
            let client = try MQTTClient(broker: MQTTBrokerURL(parsing: broker.url), configuration: configuration)
            self.client = client
            try client.start()
            let topic = MQTTTopics(client.broker).sightings(receiver: receiver)
            let uuid = try ProximityUUID(parsing: WatchBrokerRestartTests.uuid)
            let identities = minors.map { BeaconIdentity(uuid: uuid, major: 3, minor: $0) }
            let published = self.published
            let sending = self.sending
            let (counts, countChanges) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
            self.counts = counts
            let (ended, threadEnded) = AsyncStream.makeStream(of: Void.self)
            self.ended = ended
            let stopRequested = self.stopRequested
            // A thread of its own, not a task: the box keeps the air's pace however busy the rest
            // of the suite keeps the task pool (a task woken every 100 ms was once left waiting
            // more than 2 s, and the watch rightly took the box for silent).
            Thread {
                while !stopRequested.value.load(ordering: .relaxed) {
                    let minors = sending.minors.withLock { $0 }
                    let lines = identities.filter { minors.contains($0.minor) }.map { identity in
                        SightingJSONLines.encode(Sighting(
                            advertisement: IBeaconAdvertisement(identity: identity, measuredPower: -59),
                            address: BluetoothAddress("C0:00:00:00:03:0\(identity.minor)"), addressIsRandom: true, rssi: -60,
                            time: WallClock.unixTime(), clock: .unix, receiver: receiver))
                    }
                    _ = client.publish(topic: topic, payload: Array((lines.joined(separator: "\n") + "\n").utf8))
                    countChanges.yield(published.value.add(1, ordering: .relaxed).newValue)
                    // The air's pace: a box publishes as its beacons advertise, in real time,
                    // which is what the watch's silence is measured against.
                    usleep(100_000)
                }
                countChanges.finish()
                threadEnded.finish()
            }.start()
        }

        deinit {
            stopRequested.value.store(true, ordering: .relaxed)
        }

        func stop() async {
            stopRequested.value.store(true, ordering: .relaxed)
            for await _ in ended {}
            await client.stop()
        }
    }

    static func events(_ lines: [String], _ kind: String) -> [[String: Any]] {
        lines.compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["event"] as? String == kind
            else { return nil }
            return object
        }
    }

    static func states(_ lines: [String]) -> [String: String] {
        var states: [String: String] = [:]
        for change in events(lines, "change") {
            if let beacon = change["beacon"] as? String { states[beacon] = change["state"] as? String }
        }
        return states
    }

    @Test(
        "the broker stopped for longer than the silence and started again: one input-lost, one input-restored within seconds of its return, no beacon missing",
        arguments: [true, false])
    func brokerRestart(persistence: Bool) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("watch-restart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifestFile = folder.appendingPathComponent("chain.yaml")
        try Self.manifest.write(to: manifestFile, atomically: true, encoding: .utf8)

        try await withMosquitto(persistence: persistence) { broker in
            // The box publishes before the watch starts: the watch's first silence (3 s from
            // its connection) must not depend on how fast a busy machine starts the box.
            let box = try StoreBox(broker)
            await box.waitUntilPublished(moreThan: 3)
            let watchID = "watch-\(UUID().uuidString.prefix(8))"
            let watch = try BeaconctlProcess(
                ["verify", manifestFile.path, "--watch", "--input", broker.url, "--silence", "3", "--format", "jsonl"],
                environment: ["BEACONCTL_MQTT_CLIENT_ID_PREFIX": watchID])
            try await MQTTCommandTests.waitForSubscription(broker, clientID: watchID)

            #expect(await watch.waitForOutput("front and back ok") { Self.states($0) == ["front": "ok", "back": "ok"] }, "\(watch.standardError)")

            await broker.stop()
            #expect(await watch.waitForOutput("input-lost") { !Self.events($0, "input-lost").isEmpty }, "\(watch.standardOutput)\(watch.standardError)")
            // The broker stays away longer than the silence: a watch that judged while blind
            // would have both beacons missing by now. Only the wall clock can let it pass.
            try await Task.sleep(for: .seconds(Self.silence + 1))
            let restarting = WallClock.unixTime()
            try await broker.restart()
            let back = WallClock.unixTime()
            #expect(await watch.waitForOutput("input-restored") { !Self.events($0, "input-restored").isEmpty }, "\(watch.standardOutput)\(watch.standardError)")

            // The box publishes again; once it has for longer than the silence, nothing of
            // the outage can still come out as a change.
            await box.waitUntilPublished(moreThan: box.publishedCount + Int(2 * Self.silence * 10))
            await box.stop()
            watch.signal(SIGTERM)
            #expect(await watch.waitForExit() == 0, "\(watch.standardError)")

            let lines = watch.outputLines
            let lost = Self.events(lines, "input-lost")
            let restored = Self.events(lines, "input-restored")
            #expect(lost.count == 1, "\(lines)")
            #expect(restored.count == 1, "\(lines)")
            #expect((lost.first?["input"] as? String) == broker.url)
            let missing = Self.events(lines, "change").filter { $0["state"] as? String == "missing" }
            #expect(missing.isEmpty, "no beacon is missing for a broker's restart: \(missing)")
            // Reconnected within a second of the broker's return (its retry every second),
            // with room for a busy machine; the figure is printed for the record.
            let restoredAt = try #require((restored.first?["at"] as? String).flatMap { ISO8601DateFormatter.withFractions.date(from: $0) })
            let delay = restoredAt.timeIntervalSince1970 - back
            print("watch-broker-restart (persistence \(persistence)): input restored \(String(format: "%.2f", delay)) s after the broker accepted connections (restart took \(String(format: "%.2f", back - restarting)) s)")
            #expect(delay < 3, "input restored \(delay) s after the broker was back")
            let summary = try #require(Self.events(lines, "summary").last)
            #expect(summary["passed"] as? Bool == true, "\(summary)")
        }
    }
}

extension WatchBrokerRestartTests {
    /// Resumes once `path` holds `text` (the watch writes its state off its own task).
    static func waitForFile(_ path: String, containing texts: [String]) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let content = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if texts.allSatisfy(content.contains) { return }
            // A file has no event to wait on: it is looked at every 20 ms.
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("\(path) never held \(texts): \((try? String(contentsOfFile: path, encoding: .utf8)) ?? "(none)")")
    }

    @Test("a watch killed with SIGKILL and started again with the same --state reports no change for a beacon whose state did not change, and the change of one that did")
    func restartWithoutAmnesia() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("watch-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifestFile = folder.appendingPathComponent("chain.yaml")
        try Self.manifest.write(to: manifestFile, atomically: true, encoding: .utf8)
        let stateFile = folder.appendingPathComponent("watch.state").path

        try await withMosquitto { broker in
            let arguments = [
                "verify", manifestFile.path, "--watch", "--input", broker.url, "--silence", "3", "--format", "jsonl", "--state", stateFile,
            ]
            // The box publishes before the watch starts (see `brokerRestart`).
            let box = try StoreBox(broker)
            await box.waitUntilPublished(moreThan: 3)
            let firstID = "watch-\(UUID().uuidString.prefix(8))"
            let first = try BeaconctlProcess(arguments, environment: ["BEACONCTL_MQTT_CLIENT_ID_PREFIX": firstID])
            try await MQTTCommandTests.waitForSubscription(broker, clientID: firstID)
            #expect(await first.waitForOutput("front and back ok") { Self.states($0) == ["front": "ok", "back": "ok"] }, "\(first.standardError)")
            try await Self.waitForFile(stateFile, containing: [#"{"beacon":"front","state":"ok"}"#, #"{"beacon":"back","state":"ok"}"#])
            first.signal(SIGKILL)
            #expect(await first.waitForExit() != 0)

            // Started again from the state it left; meanwhile `back` leaves the air.
            let secondID = "watch-\(UUID().uuidString.prefix(8))"
            let second = try BeaconctlProcess(arguments, environment: ["BEACONCTL_MQTT_CLIENT_ID_PREFIX": secondID])
            try await MQTTCommandTests.waitForSubscription(broker, clientID: secondID)
            box.switchOff(minor: 2)
            #expect(await second.waitForOutput("back missing") { Self.states($0)["back"] == "missing" }, "\(second.standardOutput)\(second.standardError)")
            // `front`, heard all along, was ok and is ok: a published box keeps it so for two
            // silences more, and nothing is said of it.
            await box.waitUntilPublished(moreThan: box.publishedCount + Int(2 * Self.silence * 10))
            await box.stop()
            second.signal(SIGTERM)
            #expect(await second.waitForExit() == 0, "\(second.standardError)")
            let changes = Self.events(second.outputLines, "change")
            // A first state has no `previous`: a watch that forgot would report `front` anew.
            let front = changes.filter { $0["beacon"] as? String == "front" }
            #expect(!front.contains { $0["previous"] == nil }, "\(changes)")
            // Nor is anything else said of it, unless its box itself fell silent for a silence
            // (a machine too busy to run the box's process), which the watch says first.
            let boxFellSilent = !Self.events(second.outputLines, "receiver-offline").isEmpty
            #expect(front.isEmpty || boxFellSilent, "\(changes)")
            let back = changes.filter { $0["beacon"] as? String == "back" }
            #expect(back.count == 1, "\(back)")
            #expect(back.first?["previous"] as? String == "ok", "the change is from the state it had: \(back)")
            #expect(second.standardError.contains("restarting from \(stateFile)"), "\(second.standardError)")
            // The file was kept current to the end.
            try await Self.waitForFile(stateFile, containing: [#"{"beacon":"back","state":"missing"}"#])
        }
    }
}

extension ISO8601DateFormatter {
    static var withFractions: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
