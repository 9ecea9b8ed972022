import BeaconCore
import HCI

/// `scan`'s run on a live controller: the scan's sightings and a clock's tick through the one
/// live loop (`LiveSightingFeed`), on the scan's own clock, until `duration` seconds of the
/// scan, the end of the scan, a failed scan (which throws) or cancellation
/// (`CancellationError`). What becomes of them is the caller's (ranging, writing,
/// publishing, redrawing a table); both callbacks are called from the one task that reads
/// the loop, in order, so the state they touch needs no more care than that.
public enum ScanLiveRun {
    /// Sightings the run may hold unread before it drops the oldest (as verify's).
    static let queueLimit = 100_000

    /// `take` gets each sighting with the scan's time when it came; `tick` gets the scan's
    /// time once at the start and then every `tick` (and at `duration`). `drops` counts the
    /// sightings the run's queue dropped because the caller fell behind.
    public static func run(
        _ scan: LiveScan, duration: Double?, tick interval: Duration, drops: DropCounter = DropCounter(),
        take: (Sighting, _ now: Double) -> Void, tick: (_ now: Double) -> Void
    ) async throws {
        let feed = LiveSightingFeed(
            scan.sightings, tick: interval, queueLimit: queueLimit, drops: drops, clock: scan.session.clock,
            elapsed: { scan.elapsed() }, deadline: duration)
        defer { feed.stop() }
        tick(scan.elapsed())
        // Ends early when this task is cancelled: the stream's iteration stops.
        for await input in feed.inputs {
            switch input {
            case .sighting(let sighting, let time):
                // Read late, past the end (the queue was behind): not taken.
                if let duration, time > duration { return }
                take(sighting, time)
            case .tick(let time):
                tick(time)
                if let duration, time >= duration { return }
            case .ended:
                return
            case .failed(let error):
                throw error
            case .health, .receiverStatus:
                // A live scan's feed carries neither.
                continue
            }
        }
        try Task.checkCancellation()
    }
}
