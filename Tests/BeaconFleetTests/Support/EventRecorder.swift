import BeaconTestKit
import ClockTestKit
@testable import BeaconFleet

/// Keeps what the advertiser reported, for assertions while it still runs.
final class EventRecorder: Sendable {
    private let log = RecordedLog<AdvertiserEvent>()

    var events: [AdvertiserEvent] { log.elements }

    var sessions: [AdvertisingSession] { Self.sessions(in: events) }

    var warnings: [String] { Self.warnings(in: events) }

    func record(_ event: AdvertiserEvent) {
        log.append(event)
    }

    /// Waits until `count` sessions have started: resumes when the advertiser reports the
    /// last of them, however long the machine takes to get there.
    @discardableResult
    func waitForSessions(_ count: Int = 1) async throws -> [AdvertisingSession] {
        let events = try await log.wait(for: "\(count) started session(s)") { Self.sessions(in: $0).count >= count }
        return Self.sessions(in: events)
    }

    /// Waits until the advertiser has announced `count` retries: interruptions and failed
    /// attempts after which it waits and tries again.
    func waitForRetries(_ count: Int) async throws {
        try await log.wait(for: "\(count) retries announced") { events in
            events.count { event in
                switch event {
                case .interrupted(_, let retryIn): retryIn != nil
                case .restartFailed: true
                default: false
                }
            } >= count
        }
    }

    /// Waits until the advertiser has reported an event for which `condition` holds.
    @discardableResult
    func waitForEvent(
        _ description: String, where condition: @escaping @Sendable (AdvertiserEvent) -> Bool
    ) async throws -> [AdvertiserEvent] {
        try await log.wait(for: description) { $0.contains(where: condition) }
    }

    private static func sessions(in events: [AdvertiserEvent]) -> [AdvertisingSession] {
        events.compactMap { event in
            if case .started(let session) = event { return session }
            return nil
        }
    }

    private static func warnings(in events: [AdvertiserEvent]) -> [String] {
        events.compactMap { event in
            if case .warning(let message) = event { return message }
            return nil
        }
    }
}
