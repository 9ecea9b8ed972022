import BeaconCore
import BeaconTestKit
import ClockTestKit
import HCI
import Logging
import Synchronization
import Testing

@testable import BeaconFleet

@Suite("monitor --input: a recording or a broker's stream on one clock", .timeLimit(.minutes(1)))
struct MonitorReplayTests {
    final class RecordingSink: MonitorReportSink {
        let events = RecordedLog<RegionEvent>()
        func report(_ events: [RegionEvent]) { for event in events { self.events.append(event) } }
        func report(_ rangings: [RegionRanging]) {}
    }

    static let logger = Logger(label: "monitor-replay-tests") { _ in SwiftLogNoOpLogHandler() }
    static let door = VerificationScript.identity(minor: 1)

    static func replay(exitPeriod: Double, duration: Duration? = nil, sink: RecordingSink) throws -> MonitorReplay {
        let region = try #require(BeaconRegion(identifier: "store", uuid: testUUID, major: 1))
        return MonitorReplay(
            session: { MonitorSession(regions: [MonitoredRegion(region: region)], configuration: .init(exitPeriod: .passSeconds(exitPeriod)), start: $0) },
            schedule: MonitorSchedule(stateEvery: nil, rangeEvery: nil), duration: duration, output: sink, logger: logger)
    }

    static func heard(at time: Double, by receiver: String, _ clock: SightingClock = .elapsed) -> Sighting {
        VerificationScript.sighting(door, at: time, receiver: receiver, clock: clock)
    }

    @Test("two receivers with different elapsed origins and one on Unix time stay on one clock: no exit, no jump")
    func mixedReceivers() async throws {
        let sink = RecordingSink()
        // Box a's scan started 100 s before box b's; box c publishes Unix time. Each is heard
        // every half second; an exit would need 2 s of silence on the one clock.
        let sightings = [
            Self.heard(at: 100, by: "a"), Self.heard(at: 100.5, by: "a"),
            Self.heard(at: 0, by: "b"), Self.heard(at: 0.5, by: "b"),
            Self.heard(at: 1_790_000_000, by: "c", .unix), Self.heard(at: 1_790_000_000.5, by: "c", .unix),
            Self.heard(at: 101.5, by: "a"),
        ]
        let heard = try await Self.replay(exitPeriod: 2, sink: sink).run(CountedSightings(sightings), followsWallClock: false)
        #expect(heard)
        #expect(sink.events.elements.map(\.kind) == [.enter])
        #expect(sink.events.elements.first?.time == .seconds(100))
    }

    @Test("--duration counts on the one clock from the first sighting")
    func durationOnTheClock() async throws {
        let sink = RecordingSink()
        let sightings = CountedSightings((0..<10).map { Self.heard(at: 2e9 + Double($0), by: "uptime") })
        _ = try await Self.replay(exitPeriod: 30, duration: .seconds(3), sink: sink).run(sightings, followsWallClock: false)
        // An elapsed time of 2e9 s stays elapsed: the duration counts from it, no date is guessed.
        #expect(sightings.read == 5, "0 to 3 s of the recording, and the one at 4 s that ends it: nothing after")
        #expect(sink.events.elements.first?.time == .seconds(2e9))
    }

    @Test("a broker's stream on Unix time follows the wall clock between sightings, on the test clock")
    func followsTheWallClock() async throws {
        let sink = RecordingSink()
        let clock = TestClock()
        let wall = Mutex(Duration.seconds(1_790_000_000))
        // Kept open to the end: a finished stream would end the run.
        let (stream, open) = AsyncThrowingStream<Sighting, any Error>.makeStream()
        let replay = try Self.replay(exitPeriod: 2, duration: .seconds(5), sink: sink)
        // Then nothing more arrives, until the run ends.
        open.yield(Self.heard(at: 1_790_000_000, by: "store-12:hci0", .unix))
        let running = Task {
            try await replay.run(stream, followsWallClock: true, clock: clock, wallClock: { wall.withLock { $0 } })
        }
        let entered = try await sink.events.wait(for: "the enter") { !$0.isEmpty }
        #expect(entered.map(\.time) == [.seconds(1_790_000_000)])
        // 3 s of the wall clock pass with nothing heard: the next tick moves the clock there.
        wall.withLock { $0 += .seconds(3) }
        try await clock.sleepers(atLeast: 1)
        clock.advance(by: MonitorRun.liveTick)
        let exited = try await sink.events.wait(for: "the exit") { $0.count == 2 }
        #expect(exited.last?.kind == .exit)
        #expect(exited.last?.time == .seconds(1_790_000_002))
        // Past --duration (5 s of the wall clock): the run ends of itself.
        wall.withLock { $0 += .seconds(3) }
        try await clock.sleepers(atLeast: 1)
        clock.advance(by: MonitorRun.liveTick)
        #expect(try await running.value)
        open.finish()
    }
}

/// Sightings handed over one by one, counting how many were read.
private final class CountedSightings: AsyncSequence, Sendable {
    typealias Element = Sighting
    typealias Failure = any Error
    private let sightings: [Sighting]
    private let readCount = Mutex(0)

    init(_ sightings: [Sighting]) { self.sightings = sightings }

    var read: Int { readCount.withLock { $0 } }

    struct AsyncIterator: AsyncIteratorProtocol {
        let owner: CountedSightings
        mutating func next() async throws -> Sighting? {
            owner.readCount.withLock { count in
                guard count < owner.sightings.count else { return nil }
                count += 1
                return owner.sightings[count - 1]
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(owner: self) }
}
