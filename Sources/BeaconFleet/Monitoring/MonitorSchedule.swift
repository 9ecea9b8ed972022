import BeaconCore

/// When periodic state and ranging reports fall due, on monitoring's clock (`PassTime`,
/// periods `Duration`s, due times compared exactly), and what they say. Pure: the caller
/// moves the clock (a live tick, or the times of a recording).
///
/// Bounded whatever the clock does: one step of the clock yields at most
/// `catchUpLimit` periodic reports. A recording that falls silent for a year, or whose
/// clock jumps, would otherwise ask for millions of identical state reports; instead the
/// schedule skips ahead to the last period due, applies the exits due meanwhile (those
/// are never skipped) and says how many periodic reports it left out.
public struct MonitorSchedule: Sendable {
    /// The shortest period accepted: anything shorter only floods the output.
    public static let shortestPeriod = Duration.milliseconds(1)
    /// Periodic reports one step of the clock may produce before the rest are skipped.
    public static let catchUpLimit = 1_000

    /// What one step of the clock produced, in time order.
    public enum Report: Sendable, Equatable {
        /// Region events: exits that fell due, or a state report of every region.
        case events([RegionEvent])
        /// Ranging inside the regions the device is in.
        case ranging([RegionRanging])
        /// `count` periodic reports between `from` and `to` were left out (the clock jumped
        /// or the recording was silent); the states at `to` follow.
        case skipped(count: Int, from: PassTime, to: PassTime)
    }

    public let stateEvery: Duration?
    public let rangeEvery: Duration?
    private var nextState: PassTime?
    private var nextRange: PassTime?

    /// Periods below `shortestPeriod` are raised to it; `nil`, zero or negative ones turn
    /// that report off.
    public init(stateEvery: Duration?, rangeEvery: Duration?) {
        func usable(_ period: Duration?) -> Duration? {
            guard let period, period > .zero else { return nil }
            return max(period, Self.shortestPeriod)
        }
        self.stateEvery = usable(stateEvery)
        self.rangeEvery = usable(rangeEvery)
    }

    /// Starts the periods at `time` (the first report is one period later).
    public mutating func start(at time: PassTime) {
        nextState = stateEvery.map { time + $0 }
        nextRange = rangeEvery.map { time + $0 }
    }

    /// Everything due up to `time`, each at its own time, in time order. Stops early (with
    /// what it has) when the task is cancelled.
    public mutating func fire(until time: PassTime, session: inout MonitorSession) -> [Report] {
        var reports: [Report] = []
        skipAhead(to: time, session: &session, into: &reports)
        var produced = 0
        while produced < Self.catchUpLimit, !Task.isCancelled {
            let dueState = nextState.flatMap { $0 <= time ? $0 : nil }
            let dueRange = nextRange.flatMap { $0 <= time ? $0 : nil }
            if let dueState, dueRange.map({ dueState <= $0 }) ?? true, let stateEvery {
                let exits = session.advance(to: dueState)
                if !exits.isEmpty { reports.append(.events(exits)) }
                reports.append(.events(session.stateReports(at: dueState)))
                nextState = Self.after(dueState, stateEvery)
            } else if let dueRange, let rangeEvery {
                let exits = session.advance(to: dueRange)
                if !exits.isEmpty { reports.append(.events(exits)) }
                reports.append(.ranging(session.ranging(at: dueRange)))
                nextRange = Self.after(dueRange, rangeEvery)
            } else {
                break
            }
            produced += 1
        }
        return reports
    }

    /// When more reports are due than one step may produce, moves each period to its last
    /// due time (keeping the phase) and records what was left out.
    private mutating func skipAhead(to time: PassTime, session: inout MonitorSession, into reports: inout [Report]) {
        let stateDue = Self.dueCount(next: nextState, period: stateEvery, until: time)
        let rangeDue = Self.dueCount(next: nextRange, period: rangeEvery, until: time)
        guard stateDue + rangeDue > Self.catchUpLimit else { return }
        // Both due (more are due than the limit): neither is nil.
        guard let from = [nextState, nextRange].compactMap({ $0 }).min() else { return }
        var skipped = 0
        if stateDue > 1, let next = nextState, let period = stateEvery {
            nextState = Self.lastDue(next: next, period: period, count: stateDue, until: time)
            skipped += stateDue - 1
        }
        if rangeDue > 1, let next = nextRange, let period = rangeEvery {
            nextRange = Self.lastDue(next: next, period: period, count: rangeDue, until: time)
            skipped += rangeDue - 1
        }
        guard let to = [nextState, nextRange].compactMap({ $0 }).min() else { return }
        // Exits that fell due in the skipped stretch are applied (and reported) at their
        // own times before the remaining reports.
        let exits = session.advance(to: to)
        if !exits.isEmpty { reports.append(.events(exits)) }
        reports.append(.skipped(count: skipped, from: from, to: to))
    }

    /// How many times a period starting at `next` falls due by `time`; saturates far
    /// above `catchUpLimit` instead of overflowing.
    private static func dueCount(next: PassTime?, period: Duration?, until time: PassTime) -> Int {
        guard let next, let period, next <= time else { return 0 }
        return Int(saturating: min((time - next) / period, 1e12), rounding: .down) + 1
    }

    /// The last of `count` due times of a period, never after `time` and never before `next`.
    /// `count` came from `dueCount` up to `time`, so the product stays within the span from
    /// `next` to `time` (a ratio's rounding aside, which `min` takes back): it cannot overflow.
    private static func lastDue(next: PassTime, period: Duration, count: Int, until time: PassTime) -> PassTime {
        let last = next + period * (count - 1)
        return min(max(last, next), time)
    }

    /// The next due time: exactly one period on, always later (a period is at least
    /// `shortestPeriod`).
    private static func after(_ due: PassTime, _ period: Duration) -> PassTime {
        due + period
    }
}
