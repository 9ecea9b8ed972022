import BeaconCore
import BeaconFleet
import BeaconMQTT
import BeaconTestKit
import ClockTestKit
import Testing

@Suite("lost sightings: counted, said, never turned into missing")
struct SightingLossTests {
    typealias Script = VerificationScript

    static func message(_ topic: String, _ sequence: String?) -> MQTTMessage {
        MQTTMessage(
            topic: topic, payload: [], retained: false,
            userProperties: sequence.map { [MQTTUserProperty(name: MessageSequence.propertyName, value: $0)] } ?? [])
    }

    @Test("a publisher's numbering: in order nothing is missing; a gap counts the messages skipped; per topic and publisher")
    func gaps() {
        var numbering = MessageSequence.Numbering()
        let first = numbering.next(topic: "fleet/sightings/a")
        let second = numbering.next(topic: "fleet/sightings/a")
        let otherTopic = numbering.next(topic: "fleet/sightings/b")
        #expect(first.name == "beaconctl-seq")
        #expect(first.value.hasSuffix("/1"))
        #expect(second.value.hasSuffix("/2"))
        #expect(otherTopic.value.hasSuffix("/1"))

        var gaps = MessageSequence.Gaps()
        // The first message of a numbering starts it: what came before is not this reader's.
        #expect(gaps.missing(before: Self.message("fleet/sightings/a", "p1/7")) == 0)
        #expect(gaps.missing(before: Self.message("fleet/sightings/a", "p1/8")) == 0)
        #expect(gaps.missing(before: Self.message("fleet/sightings/a", "p1/12")) == 3)
        // Another topic and another publisher (a restarted box) have numberings of their own.
        #expect(gaps.missing(before: Self.message("fleet/sightings/b", "p1/1")) == 0)
        #expect(gaps.missing(before: Self.message("fleet/sightings/a", "p2/1")) == 0)
        // Late or repeated: nothing missing, and the count does not go back.
        #expect(gaps.missing(before: Self.message("fleet/sightings/a", "p1/10")) == 0)
        #expect(gaps.missing(before: Self.message("fleet/sightings/a", "p1/13")) == 0)
    }

    @Test("messages without a number, or with a malformed one, are never counted as gaps", arguments: [
        nil, "", "/", "p1/", "p1/x", "p1/-3", "p1/0", "p1/99999999999999999999999", "no-slash",
    ])
    func unnumbered(_ value: String?) {
        var gaps = MessageSequence.Gaps()
        #expect(gaps.missing(before: Self.message("t", "p/1")) == 0)
        #expect(gaps.missing(before: Self.message("t", value)) == 0)
        #expect(gaps.missing(before: Self.message("t", "p/2")) == 0)
    }

    @Test("a huge gap is counted without trapping")
    func hugeGap() {
        var gaps = MessageSequence.Gaps()
        #expect(gaps.missing(before: Self.message("t", "p/1")) == 0)
        #expect(gaps.missing(before: Self.message("t", "p/\(UInt64.max)")) == Int.max)
    }

    @Test("the audit: after a possible loss, no beacon is missing before a full silence from it")
    func auditHoldsSilence() throws {
        let door = Script.beacon("door", minor: 1)
        var audit = AuditFeed(plan: try Script.plan([door]), configuration: .init(silence: .seconds(10)))
        var events = audit.observe(Script.sighting(door.identity, at: 0))
        #expect(events.map(\.state) == [.ok])
        // Sightings may have been lost at 8 s: the silence since 0 s proves nothing until 18 s.
        events = audit.sightingsMayBeMissing(at: 8)
        #expect(events.isEmpty)
        #expect(audit.advance(to: 17.9).isEmpty)
        events = audit.advance(to: 18)
        #expect(events.map(\.state) == [.missing])
        #expect(events.first?.time == 18)
    }

    /// Hands changes, input events and reports to one stream, in the order delivered.
    final class OrderedSink: AuditEventSink {
        enum Delivered: Sendable {
            case change(AuditEvent)
            case input(AuditInputEvent)
            case report(AuditStatusReport)
        }

        let delivered: AsyncStream<Delivered>
        private let continuation: AsyncStream<Delivered>.Continuation

        init() {
            (delivered, continuation) = AsyncStream.makeStream()
        }

        func deliver(_ event: AuditEvent) { continuation.yield(.change(event)) }
        func deliver(_ event: AuditInputEvent) { continuation.yield(.input(event)) }
        func deliver(_ report: AuditStatusReport) { continuation.yield(.report(report)) }
    }

    @Test("the watch: an incomplete input is said at once (sightings-lost, then a stats report) and holds missing back a full silence")
    func watchSaysLoss() async throws {
        let plan = try Script.plan([Script.beacon("door", minor: 1)])
        let watch = AuditWatch(plan: plan, configuration: .init(silence: .milliseconds(300)))
        let sink = OrderedSink()
        let (sightings, feed) = AsyncThrowingStream<Sighting, any Error>.makeStream()
        let (health, changes) = AsyncStream.makeStream(of: InputHealthChange.self)
        let clock = TestClock()
        let running = Task {
            try await watch.run(
                sightings, timing: .live(tick: .milliseconds(20)), health: health, input: "mqtt://broker/fleet", sinks: [sink],
                clock: clock)
        }
        var delivered = sink.delivered.makeAsyncIterator()
        changes.yield(.restored)
        feed.yield(Script.sighting(Script.identity(minor: 1), at: 0))
        guard case .change(let ok) = try #require(await delivered.next()) else { Issue.record("expected a change"); return }
        #expect(ok.state == .ok)
        // 0.2 s of the watch's clock pass, a tick at a time (a jump past half the silence
        // would be the watch stalling): the beacon, last heard at 0, is not missing yet.
        for _ in 0..<10 {
            try await clock.sleepers(atLeast: 1)
            clock.advance(by: .milliseconds(20))
        }
        try await clock.sleepers(atLeast: 1)
        changes.yield(.incomplete(reason: "3 messages of fleet/sightings/a never arrived"))
        guard case .input(let loss) = try #require(await delivered.next()) else { Issue.record("expected sightings-lost"); return }
        #expect(loss.kind == .sightingsLost)
        #expect(loss.reason == "3 messages of fleet/sightings/a never arrived")
        #expect(abs(loss.time - 0.2) < 1e-9)
        // Said at once: a status report follows the event, before the next minute.
        guard case .report(let report) = try #require(await delivered.next()) else { Issue.record("expected a report"); return }
        #expect(report.end == nil)
        // Where 0.3 s of silence would have made it missing, the loss holds it back: missing
        // a full silence after the loss, not after its last reception.
        let next = try await clock.advancing(by: .milliseconds(20)) { await delivered.next() }
        guard case .change(let missing) = try #require(next) else { Issue.record("expected a change"); return }
        #expect(missing.state == .missing)
        #expect(abs(missing.time - (loss.time + 0.3)) < 1e-9)
        running.cancel()
        _ = try await running.value
    }
}

@Suite("a pipe with a stall limit: its silence past the limit is the input's, not the beacons'")
struct PipeStallTests {
    typealias Script = VerificationScript

    @Test("nothing for --stall-after: one input-lost, nothing judged while stalled; the next sighting restores it, and silence before it proves nothing")
    func stallAndReturn() async throws {
        let plan = try Script.plan([Script.beacon("door", minor: 1), Script.beacon("till", minor: 2)])
        let watch = AuditWatch(plan: plan, configuration: .init(silence: .milliseconds(500)))
        let sink = SightingLossTests.OrderedSink()
        let (sightings, feed) = AsyncThrowingStream<Sighting, any Error>.makeStream()
        let clock = TestClock()
        let running = Task {
            try await watch.run(
                sightings, timing: .live(tick: .milliseconds(100)), input: "-", sinks: [sink], clock: clock, stallAfter: .milliseconds(300))
        }
        var delivered = sink.delivered.makeAsyncIterator()
        feed.yield(Script.sighting(Script.identity(minor: 1), at: 0))
        feed.yield(Script.sighting(Script.identity(minor: 2), at: 0))
        for _ in 0..<2 {
            guard case .change(let ok) = try #require(await delivered.next()) else { Issue.record("expected a change"); return }
            #expect(ok.state == .ok)
        }
        // Nothing for 0.3 s: the pipe is stalled, said once, at the limit, before any beacon's
        // 0.5 s of silence.
        let next = try await clock.advancing(by: .milliseconds(100)) { await delivered.next() }
        guard case .input(let lost) = try #require(next) else { Issue.record("expected input-lost, got \(String(describing: next))"); return }
        #expect(lost.kind == .lost)
        #expect(lost.input == "-")
        #expect(abs(lost.time - 0.3) < 0.1 + 1e-9)
        #expect(lost.reason.contains("no sighting arrived for 0.3 s"))
        // Two seconds of the watch's clock, four silences: nothing judged.
        for _ in 0..<20 {
            try await clock.sleepers(atLeast: 1)
            clock.advance(by: .milliseconds(100))
        }
        try await clock.sleepers(atLeast: 1)
        // One beacon comes back through the pipe: the input is back. The other, silent for
        // over two seconds, is not missing at once: the next thing said is the pipe stalling
        // again 0.3 s later, before that beacon's full silence from the return.
        feed.yield(Script.sighting(Script.identity(minor: 1), at: 2.3))
        guard case .input(let restored) = try #require(await delivered.next()) else { Issue.record("expected input-restored"); return }
        #expect(restored.kind == .restored)
        let after = try await clock.advancing(by: .milliseconds(100)) { await delivered.next() }
        guard case .input(let stalledAgain) = try #require(after) else { Issue.record("expected input-lost, got \(String(describing: after))"); return }
        #expect(stalledAgain.kind == .lost)
        #expect(stalledAgain.time - restored.time < 0.5)
        running.cancel()
        let report = try await running.value
        #expect(report.statistics.beaconStates[.missing] == 0)
    }
}
