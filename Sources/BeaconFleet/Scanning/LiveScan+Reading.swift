import BeaconCore
import HCI

extension LiveScan {
    /// Sightings a reading may hold unread before it drops the oldest (as verify's).
    static let readingQueueLimit = 100_000

    /// Reads this scan's sightings and a clock's tick through the one loop over
    /// sightings (`SightingPass`), on the scan's own clock, until `duration` of the scan
    /// (the last tick comes at that instant), the end of the scan, a failed scan (which
    /// throws) or cancellation (`CancellationError`). scan's live run, monitor's and
    /// calibrate's collection all read a scan this way.
    ///
    /// `take` gets each sighting with the scan's time when it came; `tick` the scan's time
    /// every `interval`. Both are called from the one task that reads the loop, in order, so
    /// the state they touch needs no lock for their sake. `drops` counts the sightings the
    /// loop's queue dropped because the caller fell behind.
    public func read(
        until duration: Duration?, every interval: Duration, drops: DropCounter = DropCounter(),
        take: (Sighting, _ now: Double) -> Void, tick: (_ now: PassTime) -> Void
    ) async throws {
        var settings = SightingPassSettings()
        settings.queueLimit = Self.readingQueueLimit
        settings.drops = drops
        let deadline = duration.map { max(.zero, $0) }
        let pass = SightingPass(
            sightings,
            clocking: .scan(tick: interval, clock: session.clock, elapsed: { [session] in session.elapsedSinceStart() }, deadline: deadline),
            settings: settings)
        try await withoutActuallyEscaping(take) { take in
            try await withoutActuallyEscaping(tick) { tick in
                var reader = ScanReading(take: take, tick: tick)
                let outcome = try await pass.run(&reader)
                // Ended by cancellation (the stream's iteration stopped): said as such.
                if outcome.end == .interrupted { try Task.checkCancellation() }
            }
        }
    }
}

/// A scan's reader as a reducer: each sighting with the scan's time when it came, each tick.
private struct ScanReading: PassReducer {
    let take: (Sighting, _ now: Double) -> Void
    let tick: (_ now: PassTime) -> Void

    mutating func take(_ input: PassInput) -> PassStep {
        switch input {
        // The scan stamps its sightings on the pass's clock: their placed time is that stamp.
        case .sighting(let placed): take(placed.sighting, placed.time?.seconds ?? placed.sighting.time)
        case .tick(let time): tick(time)
        case .telemetry, .health, .receiverStatus, .notice, .ended:
            // A live scan's telemetry is taken from its inbox by the reader; it has no health
            // or receiver status inputs; its end ends the reading.
            break
        }
        return .more
    }
}
