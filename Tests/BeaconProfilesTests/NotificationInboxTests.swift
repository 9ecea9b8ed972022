import ClockTestKit
import HCITestKit
import LECentral
import Testing

@testable import BeaconProfiles

/// Every wait of a profile for the beacon: a value that came, a deadline on the test clock,
/// cancellation, the link ending, and the bound on values nobody took.
@Suite("Notification inbox")
struct NotificationInboxTests {
    /// An ATT bearer whose incoming PDUs the test writes; what the client sends is dropped.
    struct FeedBearer: ATTBearer {
        let context = "test: peripheral F0:00:00:00:00:01"
        let incoming: AsyncThrowingStream<[UInt8], any Error>
        let feed: AsyncThrowingStream<[UInt8], any Error>.Continuation

        init() {
            (incoming, feed) = AsyncThrowingStream.makeStream(of: [UInt8].self)
        }

        func send(_ pdu: [UInt8]) async throws(LECentralError) {}

        func notify(_ handle: UInt16, _ value: [UInt8]) {
            feed.yield(ATTPDU.handleValueNotification(handle: handle, value: value).bytes)
        }
    }

    static func inbox(_ bearer: FeedBearer, clock: TestClock) async -> NotificationInbox {
        let att = ATTClient(bearer: bearer, clock: clock)
        return NotificationInbox(values: await att.handleValues(), handle: 0x0010, att: att, clock: clock)
    }

    @Test("values of the watched handle arrive in order; others are not taken")
    func values() async {
        let bearer = FeedBearer()
        let clock = TestClock()
        let inbox = await Self.inbox(bearer, clock: clock)
        bearer.notify(0x0011, [9])
        bearer.notify(0x0010, [1])
        bearer.notify(0x0010, [2])
        #expect(await inbox.next(timeout: .seconds(15)) == .value([1]))
        #expect(await inbox.next(timeout: .seconds(15)) == .value([2]))
    }

    @Test("no value within the deadline: timed out when the test clock reaches it, not before")
    func deadline() async throws {
        let bearer = FeedBearer()
        let clock = TestClock()
        let inbox = await Self.inbox(bearer, clock: clock)
        async let arrival = inbox.next(timeout: .seconds(15))
        try await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(14))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        #expect(await arrival == .timedOut)
    }

    @Test("a cancelled wait ends at once")
    func cancellation() async throws {
        let bearer = FeedBearer()
        let clock = TestClock()
        let inbox = await Self.inbox(bearer, clock: clock)
        let waiting = Task { await inbox.next(timeout: .seconds(15)) }
        try await clock.sleepers(atLeast: 1)
        waiting.cancel()
        #expect(await waiting.value == .cancelled)
    }

    @Test("the link ending ends the wait, with the central's reason")
    func linkEnds() async throws {
        let bearer = FeedBearer()
        let clock = TestClock()
        let inbox = await Self.inbox(bearer, clock: clock)
        async let arrival = inbox.next(timeout: .seconds(15))
        try await clock.sleepers(atLeast: 1)
        bearer.feed.finish(throwing: LECentralError(context: bearer.context, kind: .disconnected(reason: nil)))
        guard case .ended = await arrival else {
            Issue.record("the wait did not end with the link")
            return
        }
        #expect(await inbox.next(timeout: .seconds(15)) != .timedOut)
    }

    @Test("values nobody takes are bounded: the oldest are dropped and counted")
    func bounded() async throws {
        let bearer = FeedBearer()
        let inbox = await Self.inbox(bearer, clock: TestClock())
        let count = NotificationInbox.capacity + 10
        for index in 0..<count { await inbox.receive([UInt8(index)]) }
        #expect(await inbox.dropped == 10)
        #expect(await inbox.next(timeout: .seconds(15)) == .value([10]))
    }
}
