import BeaconCore
import HCI

extension LiveScan {
    /// Sightings a reading may hold unread before it drops the oldest (as verify's).
    static let readingQueueLimit = 100_000

    /// Reads this scan's sightings and a clock's tick through the one live loop
    /// (`LiveSightingFeed`), on the scan's own clock, until `duration` seconds of the scan
    /// (the last tick comes at that instant), the end of the scan, a failed scan (which
    /// throws) or cancellation (`CancellationError`). scan's live run, monitor's and
    /// calibrate's collection all read a scan this way.
    ///
    /// `take` gets each sighting with the scan's time when it came; `tick` the scan's time
    /// every `interval`. Both are called from the one task that reads the loop, in order, so
    /// the state they touch needs no lock for their sake. `drops` counts the sightings the
    /// loop's queue dropped because the caller fell behind.
    public func read(
        until duration: Double?, every interval: Duration, drops: DropCounter = DropCounter(),
        take: (Sighting, _ now: Double) -> Void, tick: (_ now: Double) -> Void
    ) async throws {
        let feed = LiveSightingFeed(
            sightings, tick: interval, queueLimit: Self.readingQueueLimit, drops: drops, clock: session.clock,
            elapsed: { [session] in session.elapsed() }, deadline: duration)
        defer { feed.stop() }
        // Ends early when this task is cancelled: the stream's iteration stops.
        for await input in feed.inputs {
            switch input {
            case .sighting(let sighting):
                // Stamped once, by the scan, on the clock `elapsed` reads: the scan's time
                // when it came. Read late, past the end (the queue was behind): not taken.
                let time = sighting.time
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
