import BeaconCore

/// When periodic state and ranging reports fall due, on monitoring's clock, and what they
/// say. Pure: the caller moves the clock (a live tick, or the times of a recording).
///
/// Bounded whatever the clock does: one step of the clock yields at most
/// `catchUpLimit` periodic reports. A recording that falls silent for a year, or whose
/// clock jumps, would otherwise ask for millions of identical state reports; instead the
/// schedule skips ahead to the last period due, applies the exits due meanwhile (those
/// are never skipped) and says how many periodic reports it left out.
public struct MonitorSchedule: Sendable {
    /// The shortest period accepted: anything shorter only floods the output.
    public static let shortestPeriod = 0.001
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
        case skipped(count: Int, from: Double, to: Double)
    }

    public let stateEvery: Double?
    public let rangeEvery: Double?
    private var nextState: Double?
    private var nextRange: Double?

    /// Periods below `shortestPeriod` are raised to it; non-finite ones turn that report off.
    public init(stateEvery: Double?, rangeEvery: Double?) {
        func usable(_ period: Double?) -> Double? {
            guard let period, period.isFinite, period > 0 else { return nil }
            return max(period, Self.shortestPeriod)
        }
        self.stateEvery = usable(stateEvery)
        self.rangeEvery = usable(rangeEvery)
    }

    /// Starts the periods at `time` (the first report is one period later).
    public mutating func start(at time: Double) {
        guard time.isFinite else { return }
        nextState = stateEvery.map { time + $0 }
        nextRange = rangeEvery.map { time + $0 }
    }

    /// Everything due up to `time`, each at its own time, in time order. Stops early (with
    /// what it has) when the task is cancelled.
    public mutating func fire(until time: Double, session: inout MonitorSession) -> [Report] {
        guard time.isFinite else { return [] }
        var reports: [Report] = []
        skipAhead(to: time, session: &session, into: &reports)
        var produced = 0
        while produced < Self.catchUpLimit, !Task.isCancelled {
            let dueState = nextState.flatMap { $0 <= time ? $0 : nil }
            let dueRange = nextRange.flatMap { $0 <= time ? $0 : nil }
            if let dueState, dueState <= (dueRange ?? .infinity), let stateEvery {
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
    private mutating func skipAhead(to time: Double, session: inout MonitorSession, into reports: inout [Report]) {
        let stateDue = Self.dueCount(next: nextState, period: stateEvery, until: time)
        let rangeDue = Self.dueCount(next: nextRange, period: rangeEvery, until: time)
        guard stateDue + rangeDue > Self.catchUpLimit else { return }
        let from = min(nextState ?? .infinity, nextRange ?? .infinity)
        var skipped = 0
        if stateDue > 1, let next = nextState, let period = stateEvery {
            nextState = Self.lastDue(next: next, period: period, count: stateDue, until: time)
            skipped += stateDue - 1
        }
        if rangeDue > 1, let next = nextRange, let period = rangeEvery {
            nextRange = Self.lastDue(next: next, period: period, count: rangeDue, until: time)
            skipped += rangeDue - 1
        }
        let to = min(nextState ?? .infinity, nextRange ?? .infinity)
        // Exits that fell due in the skipped stretch are applied (and reported) at their
        // own times before the remaining reports.
        let exits = session.advance(to: to)
        if !exits.isEmpty { reports.append(.events(exits)) }
        reports.append(.skipped(count: skipped, from: from, to: to))
    }

    /// How many times a period starting at `next` falls due by `time`; saturates far
    /// above `catchUpLimit` instead of overflowing.
    private static func dueCount(next: Double?, period: Double?, until time: Double) -> Int {
        guard let next, let period, next <= time else { return 0 }
        return Int(saturating: min((time - next) / period, 1e12), rounding: .down) + 1
    }

    /// The last of `count` due times of a period, never after `time` and never before `next`.
    private static func lastDue(next: Double, period: Double, count: Int, until time: Double) -> Double {
        let last = next + Double(count - 1) * period
        return min(max(last, next), time)
    }

    /// The next due time; always later than `due`, even where `due + period` would round
    /// back to `due` (accepted times and periods make that impossible, but a loop must not
    /// depend on it).
    private static func after(_ due: Double, _ period: Double) -> Double {
        let next = due + period
        return next > due ? next : due.nextUp
    }
}
