import BeaconCore
import BeaconFleet
import BeaconTestKit
import ClockTestKit
import Testing

/// What `verify --watch --metrics` reads: the watch's counters, handed to
/// `AuditWatchReadings` at its ticks and its end, never per sighting.
@Suite("audit watch readings (metrics)")
struct AuditWatchReadingsTests {
    typealias Script = VerificationScript

    @Test("a replay ends with the final report's counters in its readings; the input no longer delivers")
    func replay() async throws {
        let plan = try Script.plan([Script.beacon("door", minor: 1), Script.beacon("hall", minor: 2)])
        let readings = AuditWatchReadings(beacons: 2)
        let watch = AuditWatch(plan: plan, configuration: .init(silence: .seconds(5)), readings: readings)
        // Before the watch starts, every beacon is unknown.
        #expect(readings.snapshot.statistics.unknownBeacons == 2)
        #expect(readings.snapshot.statistics.sightings == 0)
        let (sightings, feed) = AsyncThrowingStream<Sighting, any Error>.makeStream()
        for time in stride(from: 0.0, through: 20, by: 1) { feed.yield(Script.sighting(Script.identity(minor: 1), at: time)) }
        feed.yield(Script.sighting(Script.identity(minor: 9, uuid: ProximityUUID(high: 1, low: 2)), at: 20))
        feed.finish()
        let report = try await watch.run(sightings, timing: .replay, sinks: [])
        let snapshot = readings.snapshot
        #expect(snapshot.statistics == report.statistics)
        #expect(snapshot.statistics.sightings == 22)
        #expect(snapshot.statistics.ignoredSightings == 1)
        #expect(snapshot.statistics.beaconStates[.ok] == 1)
        #expect(snapshot.statistics.beaconStates[.missing] == 1)
        #expect(!snapshot.inputDelivering)
        #expect(snapshot.inputLosses == 0)
        #expect(snapshot.lostSightings == 0)
    }

    @Test("live with input health: each loss counted once, and a lost input is not delivering")
    func inputLosses() async throws {
        let plan = try Script.plan([Script.beacon("door", minor: 1)])
        let readings = AuditWatchReadings()
        let watch = AuditWatch(plan: plan, configuration: .init(silence: .seconds(30)), readings: readings)
        let sink = AuditWatchTests.HealthSink()
        let (sightings, _) = AsyncThrowingStream<Sighting, any Error>.makeStream()
        let (health, changes) = AsyncStream.makeStream(of: InputHealthChange.self)
        let running = Task {
            try await watch.run(
                sightings, timing: .live(tick: .milliseconds(20)), health: health, input: "mqtt://broker/fleet", sinks: [sink],
                clock: TestClock())
        }
        var delivered = sink.delivered.makeAsyncIterator()
        changes.yield(.restored)
        changes.yield(.lost(reason: "broker:1883: connection lost"))
        changes.yield(.lost(reason: "broker:1883: connection refused"))
        guard case .input(let lost) = try #require(await delivered.next()) else { Issue.record("expected input-lost"); return }
        #expect(lost.kind == .lost)
        changes.yield(.restored)
        guard case .input(let restored) = try #require(await delivered.next()) else { Issue.record("expected input-restored"); return }
        #expect(restored.kind == .restored)
        changes.yield(.lost(reason: "broker:1883: connection lost"))
        guard case .input(let lostAgain) = try #require(await delivered.next()) else { Issue.record("expected input-lost"); return }
        #expect(lostAgain.kind == .lost)
        running.cancel()
        _ = try await running.value
        #expect(readings.snapshot.inputLosses == 2)
        #expect(!readings.snapshot.inputDelivering)
        #expect(readings.snapshot.statistics.unknownBeacons == 1)
    }
}
