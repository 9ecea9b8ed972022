import BeaconCore

/// The watch as a reducer of a pass's inputs (`SightingPass`): each sighting, telemetry
/// reading, tick, change of the input's health and receiver's status goes to the
/// `ContinuousAudit`, and what it decides to the sinks (`WatchProgress`). It reads no clock:
/// a live watch's own running is told by its ticks, whose times say when its ticker woke. The
/// pass's times go to the audit as they are (`PassTime`).
struct WatchReduction: PassReducer {
    var progress: WatchProgress
    /// A live watch's bookkeeping of its input and its own running; `nil` for a replay.
    var live: Live?
    /// Sightings of a replay since the readings were last handed over.
    private var sightingsSinceReadings = 0
    /// A replay hands its readings over every so many sightings (a live watch's go at its
    /// ticks): often enough for metrics to move during a long replay, never per sighting.
    static let replayReadingsPeriod = 65_536

    struct Live {
        /// Blind until the input says it delivers (a broker: connected).
        let startsBlind: Bool
        /// A source that says nothing of its health (a pipe), given this limit, is stalled
        /// when nothing came for that long, and delivering again at its next sighting.
        let stallAfter: Duration?
        /// A gap this long between two ticks is time the watch did not run
        /// (`AuditWatch.stallLimit`).
        let stallLimit: Duration
        var started = false
        var lastArrival = PassTime.origin
        var stalled = false
        /// The latest tick: each is stamped when its ticker woke, so a gap of `stallLimit`
        /// between two (they come every tick) is time the watch did not run.
        var lastTick = PassTime.origin
        /// Telemetry handed over at a tick or at the end, before it: judged once the audit's
        /// clock is there, after a stall the tick tells is known.
        var heldTelemetry: [(reading: TelemetryReading, time: PassTime)] = []
    }

    init(progress: WatchProgress, live: Live?) {
        self.progress = progress
        self.live = live
    }

    mutating func take(_ input: PassInput) -> PassStep {
        if case .notice(.unixTimeKnown(let offset)) = input {
            progress.audit.unixTimeKnown(offset: offset)
        }
        guard live != nil else {
            replay(input)
            return .more
        }
        if live?.started == false { start() }
        switch input {
        case .sighting(let placed):
            let events = progress.audit.observe(placed)
            let time = progress.audit.now ?? .origin
            live?.lastArrival = time
            if live?.stalled == true {
                live?.stalled = false
                progress.inputHealth(.restored, at: time)
            }
            progress.take(events)
        case .telemetry(let reading, let time):
            live?.heldTelemetry.append((reading, time))
        case .tick(let time):
            tick(at: time)
        case .ended(let time):
            judgeHeldTelemetry()
            if let time { progress.take(progress.audit.advance(to: time)) }
        case .health(let change, let time):
            progress.take(progress.audit.advance(to: time))
            progress.inputHealth(change, at: time)
            progress.publishReadings()
        case .receiverStatus(let change, let time):
            progress.take(progress.audit.receiverStatus(change, at: time))
        case .notice(let notice):
            take(notice)
        }
        return .more
    }

    /// A replay: the recording's times are the clock; nothing stalls, nothing is held.
    private mutating func replay(_ input: PassInput) {
        switch input {
        case .sighting(let placed):
            progress.take(progress.audit.observe(placed))
            sightingsSinceReadings += 1
            if sightingsSinceReadings == Self.replayReadingsPeriod, progress.readings != nil {
                sightingsSinceReadings = 0
                progress.publishReadings()
            }
        case .telemetry(let reading, let time):
            progress.takeTelemetry(reading, at: time)
        case .notice(let notice):
            take(notice)
        case .tick(let time), .health(_, let time), .receiverStatus(_, let time):
            // A recording has none of these; a time moves the clock all the same.
            progress.take(progress.audit.advance(to: time))
        case .ended:
            break
        }
    }

    /// A live watch's start: its clock at 0, blind until its input says it delivers.
    private mutating func start() {
        live?.started = true
        progress.take(progress.audit.advance(to: .origin))
        if live?.startsBlind == true { progress.startBlind() }
    }

    private mutating func take(_ notice: PassNotice) {
        switch notice {
        case .unixTimeKnown:
            break
        case .receiverClock(let receiverClock):
            progress.audit.receiverClock(receiverClock)
        case .inputsDropped(let count, let time):
            progress.sightingsLost(
                at: time, reason: "the watch fell behind its input and dropped \(NumberText.count(count, "sighting")) from its queue")
        }
    }

    /// A live tick: a stall of the watch or of its input is told first, then the clock moves
    /// to it, the telemetry handed over with it is judged, and the readings go out.
    private mutating func tick(at time: PassTime) {
        guard var state = live else { return }
        if time - state.lastTick >= state.stallLimit { progress.watchStalled(from: state.lastTick, until: time) }
        state.lastTick = max(state.lastTick, time)
        if let stallAfter = state.stallAfter, !state.stalled, time - state.lastArrival >= stallAfter {
            state.stalled = true
            // At the moment the limit passed (ticks come every half second).
            progress.inputHealth(
                .lost(reason: "no sighting arrived for \(NumberText.plain(stallAfter.instantSeconds)) s: the pipe or what writes it stalled"),
                at: max(state.lastArrival + stallAfter, progress.audit.now ?? .origin))
        }
        live = state
        progress.take(progress.audit.advance(to: time))
        judgeHeldTelemetry()
        progress.publishReadings()
    }

    private mutating func judgeHeldTelemetry() {
        guard let held = live?.heldTelemetry, !held.isEmpty else { return }
        live?.heldTelemetry.removeAll(keepingCapacity: true)
        for (reading, time) in held { progress.takeTelemetry(reading, at: time) }
    }

    /// The final report, once the pass is over: an interrupted live watch's clock moves to
    /// where the pass stood.
    mutating func finish(_ outcome: PassOutcome) -> AuditStatusReport {
        judgeHeldTelemetry()
        if live != nil, outcome.end == .interrupted, let clock = outcome.clock {
            progress.take(progress.audit.advance(to: clock))
        }
        return progress.finish(outcome.end == .inputEnded ? .inputEnded : .interrupted)
    }
}
