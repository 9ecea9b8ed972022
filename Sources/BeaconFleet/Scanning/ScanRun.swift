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
    /// Where each telemetry reading to be written goes (`scan --telemetry`); `nil` when none is.
    private let writeTelemetry: (@Sendable (TelemetryReading) -> Void)?
    /// Whether readings are published beside sightings (`scan --mqtt --telemetry`).
    private let publishesTelemetry: Bool
    private let state: Mutex<State>

    private struct State {
        var ranger: BeaconRanger
        var sightingCount = 0
        var latestTime: PassTime?
        var firstTime: PassTime?
        /// The latest telemetry reading of each advertiser (or identity, for a gateway's
        /// readings without an address), for the table; at most `telemetryTableLimit`.
        var latestTelemetry: [TelemetryKey: TelemetryReading] = [:]
        var telemetryCount = 0

        /// `sighting` into ranging at `time` on the scan's clock (the sighting keeps its
        /// receiver's own time).
        mutating func range(_ sighting: Sighting, at time: PassTime) {
            ranger.add(sighting, at: time)
            sightingCount += 1
            latestTime = max(latestTime ?? time, time)
            firstTime = min(firstTime ?? time, time)
        }
    }

    /// A run ranging sightings of `region` (every beacon when `nil`); `write`, when given,
    /// gets every sighting that passes it, as it is to be written; `writeTelemetry` every
    /// telemetry reading the source heard (`scan --telemetry`: not filtered by `region`, as
    /// most readings carry no identity), and `publishesTelemetry` sends them to the broker
    /// beside the sightings.
    public init(
        region: BeaconRegion?, ranging: RangingConfiguration, write: (@Sendable (Sighting) -> Void)? = nil,
        writeTelemetry: (@Sendable (TelemetryReading) -> Void)? = nil, publishesTelemetry: Bool = false
    ) {
        self.region = region
        self.write = write
        self.writeTelemetry = writeTelemetry
        self.publishesTelemetry = publishesTelemetry
        self.state = Mutex(State(ranger: BeaconRanger(configuration: ranging)))
    }

    /// Sightings taken into ranging so far.
    public var sightingCount: Int { state.withLock { $0.sightingCount } }
    /// Telemetry readings taken so far.
    public var telemetryCount: Int { state.withLock { $0.telemetryCount } }

    /// Whom a telemetry reading is about, for the table.
    struct TelemetryKey: Hashable {
        var address: BluetoothAddress?
        var identity: BeaconIdentity?
    }

    /// Advertisers whose latest reading the table keeps: beyond, new ones are not shown.
    static let telemetryTableLimit = 4096

    /// The latest reading of each advertiser heard with telemetry, by address then identity.
    public func latestTelemetry() -> [TelemetryReading] {
        state.withLock { Array($0.latestTelemetry.values) }.sorted { first, second in
            let left = (first.address?.value ?? .max, first.receiver)
            let right = (second.address?.value ?? .max, second.receiver)
            return left < right
        }
    }

    /// Takes every reading `inbox` holds: kept as each advertiser's latest, written and
    /// published when asked (moved to Unix time by `writtenTimeOffset` when given, as the
    /// sightings are). `now` is the publisher's clock.
    func takeTelemetry(from inbox: TelemetryInbox, writtenTimeOffset: Double?, publisher: SightingPublishing?, now: Double) {
        takeTelemetry(inbox.take(), writtenTimeOffset: writtenTimeOffset, publisher: publisher, now: now)
    }

    /// Takes `readings` as `takeTelemetry(from:…)` does.
    func takeTelemetry(_ readings: [TelemetryReading], writtenTimeOffset: Double?, publisher: SightingPublishing?, now: Double) {
        guard !readings.isEmpty else { return }
        state.withLock { state in
            state.telemetryCount += readings.count
            for reading in readings {
                let key = TelemetryKey(address: reading.address, identity: reading.address == nil ? reading.identity : nil)
                guard state.latestTelemetry[key] != nil || state.latestTelemetry.count < Self.telemetryTableLimit else { continue }
                state.latestTelemetry[key] = reading
            }
        }
        for reading in readings {
            if let writeTelemetry { writeTelemetry(writtenTimeOffset.map { reading.onUnixTime(offset: $0) } ?? reading) }
            if publishesTelemetry { publisher?.add(reading, now: now) }
        }
    }
    /// The newest sighting time: "now" for a recorded input.
    public var latestTime: PassTime? { state.withLock { $0.latestTime } }

    /// The ranging table as of `time` on the scan's clock.
    public func snapshot(at time: PassTime) -> [RangedBeacon] {
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
        public let elapsed: PassTime
        public let counts: SightingExtractionCounts
        public let lostCount: Int
        public let failure: (any Error)?
    }

    /// Ranges (writes and publishes) `scan`'s sightings through `LiveScan.read` until
    /// `duration` of the scan, the scan's failure, or cancellation (Ctrl-C: a normal
    /// end); then stops the scan, for its final counts. `onTick` gets the scan's time at the
    /// start and every `tickEvery` seconds (every publisher flush interval instead, when
    /// publishing, so that a quiet air's last batch still goes out). `writesUnixTime` writes
    /// sightings on Unix time (`--unix-time`; with a publisher, the very offset its sightings
    /// carry); ranging keeps the scan's clock either way.
    public func rangeLive(
        _ scan: LiveScan, duration: Duration?, publisher: SightingPublishing?, writesUnixTime: Bool, tickEvery: Double,
        drops: DropCounter = DropCounter(), onTick: (_ now: PassTime) -> Void
    ) async -> LiveEnd {
        let tick = publisher == nil
            ? Duration(checkedSeconds: tickEvery) ?? .milliseconds(500)
            : Duration(checkedSeconds: MQTTSightingPublisher.flushInterval) ?? .milliseconds(100)
        let writtenTimeOffset = writesUnixTime ? publisher?.publisher.wallClockOffset ?? scan.unixTimeOffset() : nil
        var failure: (any Error)?
        onTick(scan.now())
        do {
            try await scan.read(until: duration, every: tick, drops: drops) { sighting, now in
                take(sighting, writtenTimeOffset: writtenTimeOffset)
                publisher?.add(sighting, now: now) { ranged(sighting) }
            } tick: { now in
                // Telemetry is rare (a frame every few seconds a beacon): taken at each tick.
                // The publisher's clock counts in seconds.
                takeTelemetry(from: scan.telemetry, writtenTimeOffset: writtenTimeOffset, publisher: publisher, now: now.seconds)
                publisher?.publisher.flushIfDue(now: now.seconds)
                onTick(now)
            }
        } catch is CancellationError {
            // Stopped: a normal end.
        } catch {
            failure = error
        }
        // Stopped here rather than at the end of the scan's scope: the final counts need it.
        await scan.close()
        takeTelemetry(from: scan.telemetry, writtenTimeOffset: writtenTimeOffset, publisher: publisher, now: scan.elapsed())
        return LiveEnd(elapsed: scan.now(), counts: scan.counts, lostCount: scan.lostCount + drops.value, failure: failure)
    }

    /// Takes a live sighting that passes the filter into ranging, and writes it, moved to
    /// Unix time by `writtenTimeOffset` when given. Returns whether it passed.
    @discardableResult
    func take(_ sighting: Sighting, writtenTimeOffset: Double? = nil) -> Bool {
        if let region, !region.matches(sighting.identity) { return false }
        // A time that cannot be told is no place on the scan's clock: written, not ranged.
        if let time = PassTime(checkedSeconds: sighting.time) {
            state.withLock { state in state.range(sighting, at: time) }
        }
        if let write { write(writtenTimeOffset.map { sighting.onUnixTime(offset: $0) } ?? sighting) }
        return true
    }

    // MARK: A recording

    /// Ranges a recording to its end, or to `duration` of its own clock; a broker's
    /// stream (`recording.isLive`) for `duration` of `clock` instead, as its
    /// sightings may stop coming at any moment. Cancellation (Ctrl-C) is a normal end: what
    /// was read is ranged. A malformed recording throws its error; a capture cut off or with
    /// undecodable records is logged, `name` naming it.
    public func rangeRecording(
        _ recording: SightingRecording, name: String, duration: Duration?, publisher: SightingPublishing?, logger: Logger,
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws(SightingStreamError) {
        let live = recording.isLive
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // A duration over a live stream counts the clock's time (below).
                    var ranging = RecordedRanging(run: self, duration: live ? nil : duration, publisher: publisher)
                    _ = try await recording.pass(
                        &ranging, clocking: .replay(origin: .firstSighting), named: name, logger: logger, whatWasDone: "ranged")
                }
                if live, let wait = duration {
                    group.addTask { try await clock.sleep(for: wait) }
                }
                // The end of the input, of the duration on a live stream, or an error.
                try await group.next()
                group.cancelAll()
            }
        } catch let error as SightingStreamError {
            throw error
        } catch {
            // Cancelled while reading: what was read is ranged.
            return
        }
        if case .capture(let capture) = recording, let summary = capture.summary.values {
            logger.info("read a \(summary.format) capture", metadata: ["file": "\(name)", "records": "\(summary.recordCount)", "counts": "\(summary.counts)"])
        }
    }

    /// A recording's pass, ranged: each sighting at its place on the pass's clock (written
    /// unchanged, published), each telemetry reading kept, written and published.
    private struct RecordedRanging: PassReducer {
        let run: ScanRun
        let duration: Duration?
        let publisher: SightingPublishing?

        mutating func take(_ input: PassInput) -> PassStep {
            switch input {
            case .sighting(let placed):
                guard run.takeRecorded(placed, duration: duration) else { return .done }
                publisher?.add(placed.sighting, now: placed.sighting.time) { run.ranged(placed.sighting) }
            case .telemetry(let reading, _):
                run.takeTelemetry([reading], writtenTimeOffset: nil, publisher: publisher, now: reading.time)
            case .tick, .health, .receiverStatus, .notice, .ended:
                break
            }
            return .more
        }
    }

    /// Takes a recorded sighting: ranged at its time on the scan's clock, where each
    /// receiver keeps the time base its first sighting gave it (`SightingTimeline`), so that
    /// recordings of several boxes appended together neither jump the clock nor age each
    /// other's beacons; written unchanged. Returns false, taking nothing, for a sighting
    /// past `duration` of that clock from the first one taken.
    func takeRecorded(_ placed: PlacedSighting, duration: Duration?) -> Bool {
        let sighting = placed.sighting
        let matches = region?.matches(sighting.identity) ?? true
        let isPastDuration = state.withLock { state -> Bool in
            // Beyond the receivers told apart, a receiver on an elapsed clock is written but
            // not ranged.
            let time = placed.time
            if let duration, let first = state.firstTime, let time, time > first + duration { return true }
            if matches, let time { state.range(sighting, at: time) }
            return false
        }
        guard !isPastDuration else { return false }
        if matches { write?(sighting) }
        return true
    }
}
