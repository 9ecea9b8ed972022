import BeaconCore
import BeaconFleet
import BeaconTestKit
import ClockTestKit
import Synchronization
import Testing

@Suite("audit watch (verify --watch, live)")
struct AuditWatchTests {
    typealias Script = VerificationScript

    /// Hands every change and report to a stream the test waits on.
    final class StreamingSink: AuditEventSink {
        let changes: AsyncStream<AuditEvent>
        private let continuation: AsyncStream<AuditEvent>.Continuation
        let reports = Mutex<[AuditStatusReport]>([])

        init() {
            (changes, continuation) = AsyncStream.makeStream()
        }

        func deliver(_ event: AuditEvent) { continuation.yield(event) }
        func deliver(_ report: AuditStatusReport) { reports.withLock { $0.append(report) } }
    }

    @Test("live: a beacon that goes quiet is reported missing with nothing else heard; cancelling ends the watch with a final report")
    func quietBeaconWhileLive() async throws {
        let plan = try Script.plan([Script.beacon("door", minor: 1)])
        let watch = AuditWatch(plan: plan, configuration: .init(silence: .milliseconds(200)))
        let sink = StreamingSink()
        let (sightings, feed) = AsyncThrowingStream<Sighting, any Error>.makeStream()
        let clock = TestClock()
        let running = Task {
            try await watch.run(sightings, timing: .live(tick: .milliseconds(20)), sinks: [sink], clock: clock)
        }
        // The clock stands still until the sighting is in: it is heard at 0.
        feed.yield(Script.sighting(Script.identity(minor: 1), at: 0))
        var changes = sink.changes.makeAsyncIterator()
        let ok = try #require(await changes.next())
        #expect(ok.state == .ok)
        #expect(ok.time == 0)
        // The source stays open and silent: only the clock can tell, a tick at a time.
        let missing = try #require(try await clock.advancing(by: .milliseconds(20)) { await changes.next() })
        #expect(missing.state == .missing)
        #expect(missing.previous == .ok)
        // Reported at the moment it fell due, on the watch's clock: its last reception + silence.
        #expect(abs(missing.time - ok.time - 0.2) < 1e-9)
        running.cancel()
        let report = try await running.value
        #expect(report.end == .interrupted)
        #expect(report.statistics.beaconStates[.missing] == 1)
        #expect(sink.reports.withLock { $0.last?.end } == .interrupted)
    }

    /// Hands changes and input events to one stream, in the order delivered.
    final class HealthSink: AuditEventSink {
        enum Delivered: Sendable {
            case change(AuditEvent)
            case input(AuditInputEvent)
        }

        let delivered: AsyncStream<Delivered>
        private let continuation: AsyncStream<Delivered>.Continuation

        init() {
            (delivered, continuation) = AsyncStream.makeStream()
        }

        func deliver(_ event: AuditEvent) { continuation.yield(.change(event)) }
        func deliver(_ event: AuditInputEvent) { continuation.yield(.input(event)) }
    }

    @Test("live with input health: blind until the input delivers; one input-lost however often it fails, one input-restored, then a full silence before missing")
    func inputHealth() async throws {
        let plan = try Script.plan([Script.beacon("door", minor: 1)])
        let watch = AuditWatch(plan: plan, configuration: .init(silence: .milliseconds(300)))
        let sink = HealthSink()
        let (sightings, feed) = AsyncThrowingStream<Sighting, any Error>.makeStream()
        let (health, changes) = AsyncStream.makeStream(of: InputHealthChange.self)
        let clock = TestClock()
        let running = Task {
            try await watch.run(
                sightings, timing: .live(tick: .milliseconds(20)), health: health, input: "mqtt://broker/fleet", sinks: [sink],
                clock: clock)
        }
        var delivered = sink.delivered.makeAsyncIterator()
        // Blind from the start: heard, the beacon is ok; however long nothing more comes, it
        // is not judged missing, since the input never said it delivers.
        feed.yield(Script.sighting(Script.identity(minor: 1), at: 0))
        guard case .change(let ok) = try #require(await delivered.next()) else { Issue.record("expected a change"); return }
        #expect(ok.state == .ok)
        changes.yield(.lost(reason: "broker:1883: connection refused"))
        changes.yield(.lost(reason: "broker:1883: connection refused, again"))
        guard case .input(let lost) = try #require(await delivered.next()) else { Issue.record("expected input-lost"); return }
        #expect(lost.kind == .lost)
        #expect(lost.input == "mqtt://broker/fleet")
        #expect(lost.reason == "broker:1883: connection refused")
        // Lost for a second of the watch's clock, several silences: still nothing judged.
        // (The ticker asleep again after the advance: its tick is queued before the return.)
        try await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(1))
        try await clock.sleepers(atLeast: 1)
        changes.yield(.restored)
        guard case .input(let restored) = try #require(await delivered.next()) else { Issue.record("expected input-restored"); return }
        #expect(restored.kind == .restored)
        #expect(restored.reason == lost.reason)
        #expect(restored.lostFor == restored.time - lost.time)
        #expect(restored.unixTime != nil)
        // Back: the beacon, silent all along, is missing a full silence after the return.
        let next = try await clock.advancing(by: .milliseconds(20)) { await delivered.next() }
        guard case .change(let missing) = try #require(next) else { Issue.record("expected a change"); return }
        #expect(missing.state == .missing)
        #expect(abs(missing.time - (restored.time + 0.3)) < 1e-9)
        running.cancel()
        let report = try await running.value
        #expect(report.end == .interrupted)
    }

    @Test("live: a clock that jumped past half the silence between two inputs is a stall: said once, and the beacon missing only a full silence after it")
    func watchStalls() async throws {
        let plan = try Script.plan([Script.beacon("door", minor: 1)])
        let watch = AuditWatch(plan: plan, configuration: .init(silence: .seconds(5)))
        let sink = HealthSink()
        let (sightings, feed) = AsyncThrowingStream<Sighting, any Error>.makeStream()
        let clock = TestClock()
        let running = Task {
            try await watch.run(sightings, timing: .live(tick: .milliseconds(500)), input: "-", sinks: [sink], clock: clock)
        }
        var delivered = sink.delivered.makeAsyncIterator()
        feed.yield(Script.sighting(Script.identity(minor: 1), at: 0))
        guard case .change(let ok) = try #require(await delivered.next()) else { Issue.record("expected a change"); return }
        #expect(ok.state == .ok)
        // The watch does not run for 10 s (twice the silence): its next tick says 10 s.
        try await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(10))
        guard case .input(let stall) = try #require(await delivered.next()) else { Issue.record("expected watch-stalled"); return }
        #expect(stall.kind == .watchStalled)
        #expect(stall.time == 10)
        #expect(stall.reason.contains("did not run for 10 s"))
        // Silent since 0, but judged only a full silence after the stall: at 15, not at 5.
        let next = try await clock.advancing(by: .milliseconds(500)) { await delivered.next() }
        guard case .change(let missing) = try #require(next) else { Issue.record("expected a change"); return }
        #expect(missing.state == .missing)
        #expect(missing.time == 15)
        running.cancel()
        let report = try await running.value
        #expect(report.statistics.stalls == 1)
    }

    /// Hands changes and receiver events to one stream, in the order delivered.
    final class ReceiverSink: AuditEventSink {
        let delivered: AsyncStream<String>
        private let continuation: AsyncStream<String>.Continuation

        init() {
            (delivered, continuation) = AsyncStream.makeStream()
        }

        func deliver(_ event: AuditEvent) { continuation.yield("\(event.beaconID ?? "?") \(event.state.rawValue)") }
        func deliver(_ event: AuditReceiverEvent) {
            continuation.yield("\(event.receiver) \(event.state.rawValue) \(event.cause.rawValue) [\(event.beacons.joined(separator: ","))]")
        }
    }

    @Test("live with receiver statuses: merged with the sightings in order; a receiver's last will is one event, then its beacons unmonitored")
    func receiverStatuses() async throws {
        let plan = try Script.plan([Script.beacon("door", minor: 1)])
        // On a clock that never moves: only the statuses change anything.
        let watch = AuditWatch(plan: plan, configuration: .init(silence: .seconds(600), followsReceivers: true))
        let sink = ReceiverSink()
        let (sightings, feed) = AsyncThrowingStream<Sighting, any Error>.makeStream()
        let (statuses, statusChanges) = AsyncStream.makeStream(of: ReceiverStatusChange.self)
        let running = Task {
            try await watch.run(
                sightings, timing: .live(tick: .milliseconds(20)), receiverStatus: statuses, sinks: [sink], clock: TestClock())
        }
        var delivered = sink.delivered.makeAsyncIterator()
        var sighting = Script.sighting(Script.identity(minor: 1), at: 0)
        sighting.receiver = "box-1"
        feed.yield(sighting)
        #expect(await delivered.next() == "box-1 online sighting []")
        #expect(await delivered.next() == "door ok")
        statusChanges.yield(ReceiverStatusChange(receiver: "box-1", online: false))
        #expect(await delivered.next() == "box-1 offline status [door]")
        #expect(await delivered.next() == "door unmonitored")
        statusChanges.yield(ReceiverStatusChange(receiver: "box-1", online: true))
        #expect(await delivered.next() == "box-1 online status [door]")
        running.cancel()
        let report = try await running.value
        #expect(report.statistics.receiversOnline == 1)
        #expect(report.statistics.beaconStates[.unmonitored] == 1)
    }

    @Test("live: the end of the source ends the watch with input-ended")
    func sourceEnds() async throws {
        let plan = try Script.plan([Script.beacon("door", minor: 1)])
        let watch = AuditWatch(plan: plan, configuration: .init(silence: .seconds(30)))
        let (sightings, feed) = AsyncThrowingStream<Sighting, any Error>.makeStream()
        feed.yield(Script.sighting(Script.identity(minor: 1), at: 5))
        feed.finish()
        // On a test clock that nobody moves: the end comes at once on the watch's clock however
        // slowly this machine runs (on the real one, a busy machine took longer than the silence).
        let report = try await watch.run(sightings, timing: AuditWatch.liveTiming, sinks: [], clock: TestClock())
        #expect(report.end == .inputEnded)
        #expect(report.statistics.allOK)
        #expect(report.lostSightings == 0)
    }

    @Test("a failing source ends the watch with its error")
    func sourceFails() async throws {
        struct Broken: Error {}
        let plan = try Script.plan([Script.beacon("door", minor: 1)])
        let watch = AuditWatch(plan: plan, configuration: .init())
        for timing in [VerificationTiming.replay, AuditWatch.liveTiming] {
            let (sightings, feed) = AsyncThrowingStream<Sighting, any Error>.makeStream()
            feed.finish(throwing: Broken())
            await #expect(throws: Broken.self) { try await watch.run(sightings, timing: timing, sinks: []) }
        }
    }
}
