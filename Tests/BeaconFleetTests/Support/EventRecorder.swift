import Synchronization

@testable import BeaconFleet

/// Keeps what the advertiser reported, for assertions while it still runs.
final class EventRecorder: Sendable {
    private let recorded = Mutex<[AdvertiserEvent]>([])

    var events: [AdvertiserEvent] { recorded.withLock { $0 } }

    var sessions: [AdvertisingSession] {
        events.compactMap { event in
            if case .started(let session) = event { return session }
            return nil
        }
    }

    var warnings: [String] {
        events.compactMap { event in
            if case .warning(let message) = event { return message }
            return nil
        }
    }

    func record(_ event: AdvertiserEvent) {
        recorded.withLock { $0.append(event) }
    }

    /// Waits until `count` sessions have started, polling.
    @discardableResult
    func waitForSessions(_ count: Int = 1, timeout: Duration = .seconds(5)) async throws -> [AdvertisingSession] {
        let deadline = ContinuousClock.now + timeout
        while sessions.count < count {
            guard ContinuousClock.now < deadline else {
                throw TestFailure("timed out waiting for \(count) started session(s); events: \(events)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        return sessions
    }
}
