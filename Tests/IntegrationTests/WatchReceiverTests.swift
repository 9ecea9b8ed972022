import BeaconCore
import BeaconFleet
import BeaconMQTT
import Foundation
import Glibc
import Synchronization
import Testing

/// `verify --watch --input mqtt://…` following the receivers of a chain (docs/verify.md,
/// "Receivers"): a store's box that dies is one `receiver-offline` and its beacons
/// `unmonitored`, never `missing`; a beacon that dies while its box still hears others is
/// `missing`. Store A's box is a real `beaconctl scan --mqtt` reading the sightings this test
/// writes to its standard input; store B's is a client of this test (`StoreBox`).
@Suite("verify --watch following the receivers on a broker", .enabled(if: MosquittoBroker.shouldRun), .timeLimit(.minutes(3)))
struct WatchReceiverTests {
    typealias Restart = WatchBrokerRestartTests

    static let manifest = """
        version: 1
        fleet: receiver-chain
        uuid: \(Restart.uuid)
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

    /// Writes store A's sightings of `front` and `back` to a `scan` child's standard input,
    /// one of each every 100 ms of real time, in Unix time, until cancelled. Non-blocking: a
    /// full pipe (the child gone) drops the lines rather than hold a thread of the pool.
    static func feed(_ pipe: Pipe) -> Task<Void, Never> {
        let descriptor = pipe.fileHandleForWriting.fileDescriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        return Task {
            guard let uuid = try? ProximityUUID(parsing: Restart.uuid) else { return }
            let start = ContinuousClock.now
            var rounds = 0
            while !Task.isCancelled {
                // Every round due by now, not one per wake-up: a wake-up that a pool busy with
                // the rest of the suite delays (350 ms each under stress) must not slow the air,
                // or the box's first batch of 64 comes after the watch's first silence. At most
                // 50 rounds (25 kB) at once, well within a pipe's 64 kB.
                let due = Int(((ContinuousClock.now - start) / .milliseconds(100)).rounded(.down)) + 1
                let now = WallClock.unixTime()
                var text = ""
                for _ in 0..<min(max(due - rounds, 0), 50) {
                    for minor: UInt16 in [1, 2] {
                        text += SightingJSONLines.encode(Sighting(
                            advertisement: IBeaconAdvertisement(identity: BeaconIdentity(uuid: uuid, major: 3, minor: minor), measuredPower: -59),
                            address: BluetoothAddress("C0:00:00:00:0A:0\(minor)"), addressIsRandom: true, rssi: -61, time: now, clock: .unix,
                            receiver: "store-a")) + "\n"
                    }
                }
                rounds = max(rounds, due)
                let bytes = Array(text.utf8)
                _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                // The air's pace, in real time: what the watch's silence is measured against.
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    static func folderWithManifest() throws -> (folder: URL, manifest: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("watch-receivers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let manifest = folder.appendingPathComponent("chain.yaml")
        try Self.manifest.write(to: manifest, atomically: true, encoding: .utf8)
        return (folder, manifest)
    }

    static func startWatch(_ broker: MosquittoBroker, manifest: URL, silence: Double = Restart.silence) async throws -> BeaconctlProcess {
        let watchID = "watch-\(UUID().uuidString.prefix(8))"
        let watch = try BeaconctlProcess(
            ["verify", manifest.path, "--watch", "--input", broker.url, "--silence", "\(Int(silence))", "--format", "jsonl"],
            environment: ["BEACONCTL_MQTT_CLIENT_ID_PREFIX": watchID])
        try await MQTTCommandTests.waitForSubscription(broker, clientID: watchID)
        return watch
    }

    /// `scan --input - --mqtt` publishes a pipe's sightings in batches of 64
    /// (`MQTTSightingPublisher.maximumBatch`), about every 3.2 s at this test's 20 a second:
    /// the watch's silence must be longer than that for the box not to look silent.
    static let boxSilence = 10.0

    @Test("store A's box killed with SIGKILL (the broker publishes its last will): one receiver-offline, its beacons unmonitored, none missing; store B's beacon still ok")
    func boxKilled() async throws {
        let (folder, manifest) = try Self.folderWithManifest()
        defer { try? FileManager.default.removeItem(at: folder) }

        try await withMosquitto { broker in
            // The boxes publish before the watch starts: its first silence (from its
            // connection) must not depend on how fast a busy machine starts a box.
            let input = Pipe()
            let boxA = try BeaconctlProcess(
                ["scan", "--input", "-", "--mqtt", broker.url, "--receiver", "store-a", "--format", "jsonl"],
                environment: ["BEACONCTL_MQTT_CLIENT_ID_PREFIX": "box-\(UUID().uuidString.prefix(8))"], standardInput: input)
            let feeding = Self.feed(input)
            let boxB = try Restart.StoreBox(broker, receiver: "store-b", minors: [3])
            await boxB.waitUntilPublished(moreThan: 3)
            // A batch is 64 sightings (`boxSilence`): once box A wrote that many, it published one.
            #expect(await boxA.waitForOutput("box A's first batch") { $0.count >= 64 }, "\(boxA.standardError)")
            let watch = try await Self.startWatch(broker, manifest: manifest, silence: Self.boxSilence)

            #expect(
                await watch.waitForOutput("every beacon ok, store A online") { lines in
                    Restart.states(lines) == ["front": "ok", "back": "ok", "side": "ok"]
                        && Restart.events(lines, "receiver-online").contains { $0["receiver"] as? String == "store-a" }
                }, "\(watch.standardOutput)\(watch.standardError)")

            // The box dies without a word: the broker closes its connection and publishes its will.
            boxA.signal(SIGKILL)
            feeding.cancel()
            #expect(await boxA.waitForExit() != 0)
            #expect(
                await watch.waitForOutput("front and back unmonitored") { lines in
                    let states = Restart.states(lines)
                    return states["front"] == "unmonitored" && states["back"] == "unmonitored"
                }, "\(watch.standardOutput)\(watch.standardError)")
            // A silence and a half more of store B publishing: anything the box's death could
            // still cause (its silence) would have come out by then.
            await boxB.waitUntilPublished(moreThan: boxB.publishedCount + Int(1.5 * Self.boxSilence * 10))
            await boxB.stop()
            watch.signal(SIGTERM)
            #expect(await watch.waitForExit() == 0, "\(watch.standardError)")
            try? input.fileHandleForWriting.close()

            let lines = watch.outputLines
            let offline = Restart.events(lines, "receiver-offline").filter { $0["receiver"] as? String == "store-a" }
            #expect(offline.count == 1, "\(lines)")
            let cause = offline.first?["cause"] as? String
            // The will arrives within milliseconds of the kill; the silence would also say
            // offline, later, were the will lost.
            #expect(cause == "status" || cause == "silence", "\(offline)")
            print("watch-receivers: store A offline by \(cause ?? "?")")
            #expect(offline.first?["beacons"] as? [String] == ["front", "back"], "\(offline)")
            let changes = Restart.events(lines, "change")
            let missing = changes.filter { $0["state"] as? String == "missing" }
            #expect(missing.isEmpty, "a dead box is no missing beacon: \(missing)")
            for beacon in ["front", "back"] {
                #expect(changes.filter { $0["beacon"] as? String == beacon }.map { $0["state"] as? String } == ["ok", "unmonitored"], "\(changes)")
            }
            #expect(changes.filter { $0["beacon"] as? String == "side" }.map { $0["state"] as? String } == ["ok"], "\(changes)")
            let summary = try #require(Restart.events(lines, "summary").last)
            #expect(summary["passed"] as? Bool == false, "unmonitored beacons are no evidence of fine ones: \(summary)")
            #expect((summary["receivers"] as? [String: Int])?["offline"] == 1, "\(summary)")
        }
    }

    @Test("a beacon switched off while its box still publishes is missing within its silence and a tick; the box stays online")
    func beaconOffWhileBoxHears() async throws {
        let (folder, manifest) = try Self.folderWithManifest()
        defer { try? FileManager.default.removeItem(at: folder) }

        try await withMosquitto { broker in
            // The box publishes before the watch starts (see `boxKilled`).
            let box = try Restart.StoreBox(broker, receiver: "store-a", minors: [1, 2, 3])
            await box.waitUntilPublished(moreThan: 3)
            let watch = try await Self.startWatch(broker, manifest: manifest)
            #expect(
                await watch.waitForOutput("every beacon ok") { Restart.states($0) == ["front": "ok", "back": "ok", "side": "ok"] },
                "\(watch.standardOutput)\(watch.standardError)")
            box.switchOff(minor: 2)
            #expect(
                await watch.waitForOutput("back missing") { Restart.states($0)["back"] == "missing" },
                "\(watch.standardOutput)\(watch.standardError)")
            // What the watch said while the box published: once it is stopped, the box's own
            // silence may pass before SIGTERM is handled on a busy machine, and then it is
            // rightly offline.
            let whilePublishing = watch.outputLines
            await box.stop()
            watch.signal(SIGTERM)
            #expect(await watch.waitForExit() == 0, "\(watch.standardError)")

            let lines = watch.outputLines
            let change = try #require(Restart.events(lines, "change").first { $0["beacon"] as? String == "back" && $0["state"] as? String == "missing" })
            let time = try #require(change["time"] as? Double)
            let lastSeen = try #require(change["last_seen"] as? Double)
            // On the watch's own clock: its silence, then the box's next sighting (every
            // 100 ms) shows the box still hears; the live tick is 0.5 s. The watch judges at
            // `lastSeen + silence` (ContinuousAuditTests checks that edge to the last bit); both
            // times are written to the microsecond, so their difference is compared at that
            // resolution (the two parsed numbers of a 3 s silence may differ by 2.9999999999999996).
            let silentMicroseconds = ((time - lastSeen) * 1_000_000).rounded()
            #expect(silentMicroseconds >= Restart.silence * 1_000_000, "\(change)")
            #expect(time - lastSeen <= Restart.silence + 0.5, "\(change)")
            print("watch-receivers: back missing \(String(format: "%.2f", time - lastSeen)) s after it was last heard (silence \(Restart.silence) s)")
            #expect((change["reason"] as? String)?.contains("while store-a still hears others") == true, "\(change)")
            #expect(Restart.events(whilePublishing, "receiver-offline").isEmpty, "\(whilePublishing)")
        }
    }
}
