import BeaconCore
import HCI
import Logging
import Synchronization

/// The use case behind `scan`: one run ranging sightings, live from a controller
/// (`rangeLive`) or from a recording or a broker's stream (`rangeRecording`), filtered to a
/// region, written where the caller says (JSON lines on the command line) and published when
/// a publisher is given. The ranging table it keeps (`snapshot(at:)`) is what the command
/// line draws; drawing it is not this type's.
///
/// Shared by the task reading sightings and the one drawing the table, hence the lock.
public final class ScanRun: Sendable {
    public let region: BeaconRegion?
    /// Where each sighting to be written goes; `nil` when none is.
    private let write: (@Sendable (Sighting) -> Void)?
    private let state: Mutex<State>

    private struct State {
        var ranger: BeaconRanger
        var sightingCount = 0
        var latestTime: Double?
        var firstTime: Double?
        /// A recording's clock, each receiver placed on it (as verify and monitor place them).
        var timeline = SightingTimeline()

        /// `sighting` into ranging at `time` on the scan's clock.
        mutating func range(_ sighting: Sighting, at time: Double) {
            var placed = sighting
            placed.time = time
            ranger.add(placed)
            sightingCount += 1
            latestTime = max(latestTime ?? time, time)
            firstTime = min(firstTime ?? time, time)
        }
    }

    /// A run ranging sightings of `region` (every beacon when `nil`); `write`, when given,
    /// gets every sighting that passes it, as it is to be written.
    public init(region: BeaconRegion?, ranging: RangingConfiguration, write: (@Sendable (Sighting) -> Void)? = nil) {
        self.region = region
        self.write = write
        self.state = Mutex(State(ranger: BeaconRanger(configuration: ranging)))
    }

    /// Sightings taken into ranging so far.
    public var sightingCount: Int { state.withLock { $0.sightingCount } }
    /// The newest sighting time: "now" for a recorded input.
    public var latestTime: Double? { state.withLock { $0.latestTime } }

    /// The ranging table as of `time` on the scan's clock.
    public func snapshot(at time: Double) -> [RangedBeacon] {
        state.withLock { state in
            state.ranger.forgetStale(at: time)
            return state.ranger.snapshot(at: time)
        }
    }

    /// The beacon `sighting` belongs to as ranged now (the newest time taken), or `nil`
    /// when it was not taken.
    func ranged(_ sighting: Sighting) -> RangedBeacon? {
        state.withLock { state in
            guard let now = state.latestTime else { return nil }
            let key = BeaconRanger.Key(identity: sighting.identity, address: sighting.address, receiver: sighting.receiver)
            return state.ranger.beacon(key, at: now)
        }
    }

    // MARK: A live scan

    /// How a live run ended: the scan's time and counts then, the reports lost on the way
    /// (before the run, in the scan's queue, and in it), and what stopped the reading early
    /// (the scan failed), if anything did.
    public struct LiveEnd: Sendable {
        public let elapsed: Double
        public let counts: SightingExtractionCounts
        public let lostCount: Int
        public let failure: (any Error)?
    }

    /// Ranges (writes and publishes) `scan`'s sightings through `LiveScan.read` until
    /// `duration` seconds of the scan, the scan's failure, or cancellation (Ctrl-C: a normal
    /// end); then stops the scan, for its final counts. `onTick` gets the scan's time at the
    /// start and every `tickEvery` seconds (every publisher flush interval instead, when
    /// publishing, so that a quiet air's last batch still goes out). `writesUnixTime` writes
    /// sightings on Unix time (`--unix-time`; with a publisher, the very offset its sightings
    /// carry); ranging keeps the scan's clock either way.
    public func rangeLive(
        _ scan: LiveScan, duration: Double?, publisher: SightingPublishing?, writesUnixTime: Bool, tickEvery: Double,
        drops: DropCounter = DropCounter(), onTick: (_ now: Double) -> Void
    ) async -> LiveEnd {
        let tick = publisher == nil
            ? Duration(checkedSeconds: tickEvery) ?? .milliseconds(500)
            : Duration(checkedSeconds: MQTTSightingPublisher.flushInterval) ?? .milliseconds(100)
        let writtenTimeOffset = writesUnixTime ? publisher?.publisher.wallClockOffset ?? scan.unixTimeOffset() : nil
        var failure: (any Error)?
        onTick(scan.elapsed())
        do {
            try await scan.read(until: duration, every: tick, drops: drops) { sighting, now in
                take(sighting, writtenTimeOffset: writtenTimeOffset)
                publisher?.add(sighting, now: now) { ranged(sighting) }
            } tick: { now in
                publisher?.publisher.flushIfDue(now: now)
                onTick(now)
            }
        } catch is CancellationError {
            // Stopped: a normal end.
        } catch {
            failure = error
        }
        // Stopped here rather than at the end of the scan's scope: the final counts need it.
        await scan.close()
        return LiveEnd(elapsed: scan.elapsed(), counts: scan.counts, lostCount: scan.lostCount + drops.value, failure: failure)
    }

    /// Takes a live sighting that passes the filter into ranging, and writes it, moved to
    /// Unix time by `writtenTimeOffset` when given. Returns whether it passed.
    @discardableResult
    func take(_ sighting: Sighting, writtenTimeOffset: Double? = nil) -> Bool {
        if let region, !region.matches(sighting.identity) { return false }
        state.withLock { state in state.range(sighting, at: sighting.time) }
        if let write { write(writtenTimeOffset.map { sighting.onUnixTime(offset: $0) } ?? sighting) }
        return true
    }

    // MARK: A recording

    /// Ranges a recording to its end, or to `duration` seconds of its own clock; a broker's
    /// stream (`recording.isLive`) for `duration` seconds of `clock` instead, as its
    /// sightings may stop coming at any moment. Cancellation (Ctrl-C) is a normal end: what
    /// was read is ranged. A malformed recording throws its error; a capture cut off or with
    /// undecodable records is logged, `name` naming it.
    public func rangeRecording(
        _ recording: SightingRecording, name: String, duration: Double?, publisher: SightingPublishing?, logger: Logger,
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws(SightingStreamError) {
        let live = recording.isLive
        recording.announceUndeclaredUnixTime { logger.warning("\($0)") }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await recording.forEach { sighting in
                        // A duration over a live stream counts the clock's seconds (below).
                        guard self.takeRecorded(sighting, duration: live ? nil : duration) else { return false }
                        publisher?.add(sighting, now: sighting.time) { self.ranged(sighting) }
                        return true
                    }
                }
                if live, let wait = duration.flatMap(Duration.init(checkedSeconds:)) {
                    group.addTask { try await clock.sleep(for: wait) }
                }
                // The end of the input, of the duration on a live stream, or an error.
                try await group.next()
                group.cancelAll()
            }
        } catch let error as SightingStreamError {
            throw error
        } catch {
            // Cancelled while reading: range what was read.
            return
        }
        if let truncation = recording.truncation {
            logger.warning("\(name): \(truncation); ranged what precedes it")
        }
        if let undecodable = recording.undecodableWarning { logger.warning("\(name): \(undecodable)") }
        if case .capture(let capture) = recording, let summary = capture.summary.values {
            logger.info("read a \(summary.format) capture", metadata: ["file": "\(name)", "records": "\(summary.recordCount)", "counts": "\(summary.counts)"])
        }
    }

    /// Takes a recorded sighting: ranged at its time on the scan's clock, where each
    /// receiver keeps the time base its first sighting gave it (`SightingTimeline`), so that
    /// recordings of several boxes appended together neither jump the clock nor age each
    /// other's beacons; written unchanged. Returns false, taking nothing, for a sighting
    /// past `duration` seconds of that clock from the first one taken.
    func takeRecorded(_ sighting: Sighting, duration: Double?) -> Bool {
        let matches = region?.matches(sighting.identity) ?? true
        let isPastDuration = state.withLock { state -> Bool in
            // Beyond the receivers told apart, a receiver on an elapsed clock is written but
            // not ranged.
            let time = state.timeline.place(sighting)?.time
            if let duration, let first = state.firstTime, let time, time > first + duration { return true }
            if matches, let time { state.range(sighting, at: time) }
            return false
        }
        guard !isPastDuration else { return false }
        if matches { write?(sighting) }
        return true
    }
}
