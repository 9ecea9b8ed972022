import BeaconCore
import HCI

/// The use case behind `verify --watch`: runs a `ContinuousAudit` over a stream of sightings
/// until the input ends or the task is cancelled, handing every change and a status report
/// every `statisticsPeriod` seconds to the sinks.
public struct AuditWatch: Sendable {
    public let plan: VerificationPlan
    public let configuration: ContinuousAudit.Configuration

    /// A live watch's clock ticks every half second: a beacon that goes quiet is reported
    /// within silence + 0.5 s even when nothing is heard.
    public static let liveTiming = VerificationTiming.live(tick: .milliseconds(500))
    /// Seconds between status reports, on the audit's clock.
    public static let statisticsPeriod = 60.0
    /// Inputs the live watch holds for the audit: far more than a second of the busiest
    /// air. Beyond, the oldest are dropped and counted.
    static let liveQueueLimit = 100_000

    public init(plan: VerificationPlan, configuration: ContinuousAudit.Configuration) {
        self.plan = plan
        self.configuration = configuration
    }

    /// Watches until the input ends (`.inputEnded`) or the calling task is cancelled
    /// (`.interrupted`), and returns the final report, which the sinks get too. An error from
    /// `sightings` ends the watch with that error. `lostBeforehand` counts what the source
    /// lost before the watch saw it (`LiveScan`).
    public func run<Sightings: AsyncSequence<Sighting, any Error> & Sendable>(
        _ sightings: Sightings, timing: VerificationTiming, lostBeforehand: (any LossCounting)? = nil,
        sinks: [any AuditEventSink]
    ) async throws -> AuditStatusReport {
        let ownDrops = DropCounter()
        var progress = WatchProgress(
            audit: ContinuousAudit(plan: plan, configuration: configuration), sinks: sinks,
            lost: { (lostBeforehand?.lostCount ?? 0) + ownDrops.value })
        let end: AuditWatchEnd
        switch timing {
        case .replay:
            do {
                for try await sighting in sightings {
                    if Task.isCancelled { break }
                    progress.take(progress.audit.observe(sighting))
                }
            } catch {
                // A reader may end with an error of its own when it is cancelled: still a stop.
                if !Task.isCancelled { throw error }
            }
            end = Task.isCancelled ? .interrupted : .inputEnded
        case .live(let tick):
            end = try await listen(sightings, tick: tick, drops: ownDrops, progress: &progress)
        }
        return progress.finish(end)
    }

    private func listen<Sightings: AsyncSequence<Sighting, any Error> & Sendable>(
        _ sightings: Sightings, tick: Duration, drops: DropCounter, progress: inout WatchProgress
    ) async throws -> AuditWatchEnd {
        // One queue for both sources, so that the audit is only ever touched by this task.
        let feed = LiveSightingFeed(sightings, tick: tick, queueLimit: Self.liveQueueLimit, drops: drops)
        defer { feed.stop() }

        // The audit's clock counts from the feed's start: Unix time is that start plus it.
        let unixOrigin = WallClock.unixTime() - feed.elapsed()
        progress.unixTime = { unixOrigin + $0 }
        progress.take(progress.audit.advance(to: 0))
        // Ends early when this task is cancelled: the stream's iteration stops.
        for await input in feed.inputs {
            switch input {
            case .sighting(let sighting, let time):
                // The receiver's clock is tied to this one at its first sighting (ReceiverClocks).
                progress.take(progress.audit.advance(to: time) + progress.audit.observe(sighting))
            case .tick(let time):
                progress.take(progress.audit.advance(to: time))
            case .ended(let time):
                progress.take(progress.audit.advance(to: time))
                return .inputEnded
            case .failed(let error):
                throw error
            }
        }
        progress.take(progress.audit.advance(to: feed.elapsed()))
        return .interrupted
    }
}

/// The audit with its sinks and the status report schedule.
private struct WatchProgress {
    var audit: ContinuousAudit
    let sinks: [any AuditEventSink]
    let lost: @Sendable () -> Int
    private var nextReport: Double?
    /// Unix time of a moment on the audit's clock. A replayed recording's clock is its own
    /// times, Unix time when they are (ReceiverClocks.wallClockThreshold); a live watch
    /// replaces this with its start plus the clock.
    var unixTime: @Sendable (Double) -> Double? = { $0 >= ReceiverClocks.wallClockThreshold ? $0 : nil }

    init(audit: ContinuousAudit, sinks: [any AuditEventSink], lost: @escaping @Sendable () -> Int) {
        self.audit = audit
        self.sinks = sinks
        self.lost = lost
    }

    /// Hands `events` to every sink, then a status report when one is due.
    mutating func take(_ events: [AuditEvent]) {
        for var event in events {
            event.lastSeenUnixTime = event.lastSeen.flatMap(unixTime)
            for sink in sinks { sink.deliver(event) }
        }
        guard let now = audit.now else { return }
        guard let due = nextReport else {
            nextReport = now + AuditWatch.statisticsPeriod
            return
        }
        guard now >= due else { return }
        let report = AuditStatusReport(time: now, statistics: audit.statistics, lostSightings: lost(), beacons: beaconSummaries())
        for sink in sinks { sink.deliver(report) }
        // One report however far the clock jumped; the next on the period's grid.
        let periods = ((now - due) / AuditWatch.statisticsPeriod).rounded(.down) + 1
        nextReport = due + periods * AuditWatch.statisticsPeriod
    }

    private func beaconSummaries() -> [AuditBeaconSummary] {
        audit.beaconSummaries.map { summary in
            var summary = summary
            summary.lastSeenUnixTime = summary.lastSeen.flatMap(unixTime)
            return summary
        }
    }

    /// The final report, also handed to the sinks.
    func finish(_ end: AuditWatchEnd) -> AuditStatusReport {
        let report = AuditStatusReport(
            time: audit.now ?? 0, statistics: audit.statistics, lostSightings: lost(), end: end,
            beaconsNotOK: audit.beaconStates.filter { $0.state != .ok }, beacons: beaconSummaries())
        for sink in sinks { sink.deliver(report) }
        return report
    }
}
