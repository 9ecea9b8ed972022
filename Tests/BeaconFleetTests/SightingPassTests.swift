import BeaconCore
import BeaconTestKit
import ClockTestKit
import HCITestKit
import Testing

@testable import BeaconFleet

/// The one loop over sightings: what it feeds a reducer, in what order, on which clock.
struct SightingPassTests {
    static let door = BeaconIdentity(uuid: VerificationScript.fleetUUID, major: 1, minor: 1)

    /// Keeps every input, and is done after `limit` sightings when given.
    struct Recorder: PassReducer {
        var inputs: [String] = []
        var limit: Int?
        var sightings = 0

        mutating func take(_ input: PassInput) -> PassStep {
            switch input {
            case .sighting(let placed):
                sightings += 1
                inputs.append("sighting \(placed.sighting.receiver)@\(placed.sighting.time) at \(placed.time.map { "\($0.seconds)" } ?? "-") clock \(placed.clock.seconds)")
            case .telemetry(let reading, let time): inputs.append("telemetry \(reading.batteryMillivolts ?? 0) at \(time.seconds)")
            case .tick(let time): inputs.append("tick \(time.seconds)")
            case .health(let change, let time): inputs.append("health \(change) at \(time.seconds)")
            case .receiverStatus(_, let time): inputs.append("status at \(time.seconds)")
            case .ended(let time): inputs.append("ended at \(time.map { "\($0.seconds)" } ?? "-")")
            case .notice(.unixTimeKnown(let offset)): inputs.append("notice unixTimeKnown(offset: \(PassTime(sinceOrigin: offset).seconds))")
            case .notice(let notice): inputs.append("notice \(notice)")
            }
            if let limit, sightings >= limit { return .done }
            return .more
        }
    }

    /// A `Recorder` that says what it has been fed after every input, for a live test to wait on.
    struct Telling: PassReducer {
        var recorder = Recorder()
        let feeding: AsyncStream<[String]>.Continuation

        mutating func take(_ input: PassInput) -> PassStep {
            let step = recorder.take(input)
            feeding.yield(recorder.inputs)
            return step
        }
    }

    /// Runs `pass` in a task with a `Telling` reducer: the inputs fed so far come on `fed`
    /// after every input.
    static func runTelling(
        _ pass: SightingPass<AsyncThrowingStream<Sighting, any Error>>
    ) -> (running: Task<PassOutcome, any Error>, fed: AsyncStream<[String]>) {
        let (fed, feeding) = AsyncStream<[String]>.makeStream()
        let running = Task {
            var reducer = Telling(feeding: feeding)
            return try await pass.run(&reducer)
        }
        return (running, fed)
    }

    static func sighting(at time: Double, by receiver: String, _ clock: SightingClock = .elapsed) -> Sighting {
        VerificationScript.sighting(door, at: time, receiver: receiver, clock: clock)
    }

    static func reading(_ millivolts: UInt16, at time: Double, by receiver: String) -> TelemetryReading {
        TelemetryReading(
            address: nil, addressIsRandom: false, identity: door, batteryMillivolts: millivolts, temperature: nil, time: time,
            clock: .elapsed, receiver: receiver, source: .eddystoneTLM)
    }

    static func stream(_ sightings: [Sighting]) -> AsyncThrowingStream<Sighting, any Error> {
        AsyncThrowingStream { continuation in
            for sighting in sightings { continuation.yield(sighting) }
            continuation.finish()
        }
    }

    @Test("a replay from 0: receivers on their own elapsed clocks each join where the clock stands; the end comes last")
    func replayFromZero() async throws {
        let sightings = [Self.sighting(at: 100, by: "a"), Self.sighting(at: 101, by: "a"), Self.sighting(at: 5, by: "b"), Self.sighting(at: 7, by: "b")]
        var recorder = Recorder()
        let outcome = try await SightingPass(Self.stream(sightings), clocking: .replay(origin: .zero)).run(&recorder)
        #expect(recorder.inputs == [
            "sighting a@100.0 at 0.0 clock 0.0", "sighting a@101.0 at 1.0 clock 1.0",
            "sighting b@5.0 at 1.0 clock 1.0", "sighting b@7.0 at 3.0 clock 3.0", "ended at 3.0",
        ])
        #expect(outcome.end == .inputEnded)
        #expect(outcome.clock?.seconds == 3)
    }

    @Test("a replay from its first sighting keeps the recording's own times; a late one keeps its place, the clock stays")
    func replayFromFirstSighting() async throws {
        let sightings = [Self.sighting(at: 2e9, by: "a", .unix), Self.sighting(at: 2e9 + 2, by: "a", .unix), Self.sighting(at: 2e9 + 1, by: "a", .unix)]
        var recorder = Recorder()
        _ = try await SightingPass(Self.stream(sightings), clocking: .replay(origin: .firstSighting)).run(&recorder)
        // Unix time is known from the first sighting on it, and said before it.
        #expect(recorder.inputs == [
            "notice unixTimeKnown(offset: 0.0)",
            "sighting a@2000000000.0 at 2000000000.0 clock 2000000000.0", "sighting a@2000000002.0 at 2000000002.0 clock 2000000002.0",
            "sighting a@2000000001.0 at 2000000001.0 clock 2000000002.0", "ended at 2000000002.0",
        ])
    }

    @Test("telemetry is handed over when the clock reaches it, between the sightings around it; an unknown receiver's at once")
    func telemetryInOrder() async throws {
        let inbox = TelemetryInbox()
        // Decoded ahead of the pass, as a reader running ahead leaves them.
        // In the order heard: one from a receiver no sighting placed yet, then one of box a.
        inbox.put(contentsOf: [Self.reading(2800, at: 9, by: "elsewhere"), Self.reading(2900, at: 1.5, by: "a")])
        let sightings = [Self.sighting(at: 0, by: "a"), Self.sighting(at: 1, by: "a"), Self.sighting(at: 2, by: "a")]
        var recorder = Recorder()
        _ = try await SightingPass(Self.stream(sightings), clocking: .replay(origin: .zero), telemetry: inbox).run(&recorder)
        #expect(recorder.inputs == [
            "sighting a@0.0 at 0.0 clock 0.0", "telemetry 2800 at 0.0",
            "sighting a@1.0 at 1.0 clock 1.0",
            "sighting a@2.0 at 2.0 clock 2.0", "telemetry 2900 at 1.5", "ended at 2.0",
        ])
    }

    @Test("a reducer that is done ends the pass: nothing more is read, no end is fed")
    func reducerDone() async throws {
        let sightings = (0..<10).map { Self.sighting(at: Double($0), by: "a") }
        var recorder = Recorder(limit: 3)
        let outcome = try await SightingPass(Self.stream(sightings), clocking: .replay(origin: .zero)).run(&recorder)
        #expect(outcome.end == .reducerDone)
        #expect(recorder.inputs.count == 3)
    }

    @Test("a source's error comes after everything before it was fed")
    func sourceError() async throws {
        struct Broken: Error {}
        let stream = AsyncThrowingStream<Sighting, any Error> { continuation in
            continuation.yield(Self.sighting(at: 0, by: "a"))
            continuation.finish(throwing: Broken())
        }
        var recorder = Recorder()
        await #expect(throws: Broken.self) { _ = try await SightingPass(stream, clocking: .replay(origin: .zero)).run(&recorder) }
        #expect(recorder.inputs == ["sighting a@0.0 at 0.0 clock 0.0"])
    }

    @Test("live, on a test clock: a receiver joins at its arrival, ticks move the clock, the end is on the feed's clock")
    func live() async throws {
        let clock = TestClock()
        let (stream, continuation) = AsyncThrowingStream<Sighting, any Error>.makeStream()
        let (running, fed) = Self.runTelling(SightingPass(stream, clocking: .live(tick: .seconds(1), clock: clock)))
        var updates = fed.makeAsyncIterator()
        try await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(1))
        // Sent once the tick was fed: the order is the events', not the machine's speed.
        #expect(await updates.next() == ["tick 1.0"])
        continuation.yield(Self.sighting(at: 500, by: "box"))
        #expect(await updates.next()?.last == "sighting box@500.0 at 1.0 clock 1.0")
        continuation.finish()
        #expect(await updates.next()?.last == "ended at 1.0")
        let outcome = try await running.value
        #expect(outcome.end == .inputEnded)
    }

    @Test("live, checking arrivals: Unix time said first; a box whose clock is off by more than the tolerance is said before its sighting, placed on its arrival")
    func liveCheckingArrivals() async throws {
        let clock = TestClock()
        let (stream, continuation) = AsyncThrowingStream<Sighting, any Error>.makeStream()
        let pass = SightingPass(stream, clocking: .liveCheckingArrivals(tick: .seconds(1), clock: clock, arrivalTolerance: .seconds(5)))
        let (running, fed) = Self.runTelling(pass)
        var updates = fed.makeAsyncIterator()
        let first = try #require(await updates.next())
        #expect(first.count == 1 && first[0].hasPrefix("notice unixTimeKnown(offset: "))
        try await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(1))
        #expect(await updates.next()?.last == "tick 1.0")
        // A box whose clock stands decades ahead: no delay can do that.
        continuation.yield(Self.sighting(at: 4e9, by: "box", .unix))
        let told = try #require(await updates.next())
        #expect(told.last?.hasPrefix("notice receiverClock(") == true)
        #expect(told.last?.contains("agrees: false") == true)
        // Placed on its arrival, which is never later than a tick after the last one.
        #expect(await updates.next()?.last == "sighting box@4000000000.0 at 1.0 clock 1.0")
        continuation.finish()
        #expect(await updates.next()?.last == "ended at 1.0")
        #expect(try await running.value.end == .inputEnded)
    }
}
