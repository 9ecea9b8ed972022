import BeaconCore
import HCI

/// The one loop over sightings: every pass — a verification, a watch's replay, a scan's
/// ranging, a monitoring run, a calibration's sampling — reads its source through this
/// driver, which places each sighting once on the pass's clock (`SightingTimeline`, built
/// here and nowhere else for these passes), hands over the telemetry heard beside the
/// sightings when the clock reaches it, merges a live source's ticks, health and receivers'
/// statuses in the order they arrive (`LiveSightingFeed`), and feeds one stream of
/// `PassInput`s to a `PassReducer` until the reducer is done, the input ends, the deadline
/// comes or the calling task is cancelled.
///
/// The imperative shell of a pass: clocks, queues and tasks are here; what the sightings
/// mean is the reducer's.
public struct SightingPass<Sightings: AsyncSequence<Sighting, any Error> & Sendable>: Sendable {
    public let sightings: Sightings
    public let clocking: PassClocking
    /// Where the source leaves the telemetry it decodes (`SightingSource.telemetry`).
    public let telemetry: TelemetryInbox?
    public var settings: SightingPassSettings

    public init(_ sightings: Sightings, clocking: PassClocking, telemetry: TelemetryInbox? = nil, settings: SightingPassSettings = SightingPassSettings()) {
        self.sightings = sightings
        self.clocking = clocking
        self.telemetry = telemetry
        self.settings = settings
    }

    /// Feeds `reducer` until it is done, the input ends (`.ended` is its last input), the
    /// deadline comes or the task is cancelled. An error of the source is thrown at its place,
    /// after everything before it was fed.
    // Inlined where the reducer is concrete, so that the replay's loop (`driveBatches`, generic
    // over the reducer only) is specialized for it: a call through the protocol per sighting
    // cost a third of a replay's time.
    @inline(__always)
    public func run<Reducer: PassReducer>(_ reducer: inout Reducer) async throws -> PassOutcome {
        var state = PassState(
            telemetry: telemetry, maximumReceivers: settings.maximumReceivers, arrivalTolerance: clocking.arrivalTolerance)
        let arrivals: PassArrivals<Sightings>
        switch clocking {
        case .replay(let origin):
            if case .zero = origin { state.timeline.advance(to: .origin) }
            arrivals = .recorded(RecordedArrivals(sightings, readingAhead: settings.readsAhead))
        case .live(let tick, let clock):
            state.timeline.advance(to: .origin)
            arrivals = .live(feed(tick: tick, clock: clock))
        case .liveCheckingArrivals(let tick, let clock, _):
            let feed = feed(tick: tick, clock: clock)
            // The pass's clock counts from the feed's start: its times are told as Unix time by
            // the wall clock read once now (a wall clock beyond any pass time leaves it untied).
            let elapsed = feed.elapsed()
            if let offset = Duration(checkedSeconds: WallClock.unixOffset(elapsed: elapsed.seconds), within: PassTime.acceptedSeconds) {
                state.timeline.tieToUnixTime(offset: offset)
            }
            state.timeline.advance(to: .origin)
            arrivals = .live(feed)
        case .scan(let tick, let clock, let elapsed, let deadline):
            arrivals = .live(feed(tick: tick, clock: clock, elapsed: elapsed, deadline: deadline))
        case .followingWallClock(let tick, let clock, let wallClock, _):
            state.wallClockAtStart = wallClock()
            arrivals = .live(feed(tick: tick, clock: clock))
        }
        defer { arrivals.stop() }
        let end = try await drive(arrivals, state: &state, reducer: &reducer)
        return PassOutcome(end: end, clock: end == .interrupted ? arrivals.interruptedAt(state.timeline.now) : state.timeline.now)
    }

    private func feed(
        tick: Duration, clock: any Clock<Duration>, elapsed: (@Sendable () -> Duration)? = nil, deadline: Duration? = nil
    ) -> LiveSightingFeed {
        LiveSightingFeed(
            sightings, tick: tick, queueLimit: settings.queueLimit, drops: settings.drops, health: settings.health,
            receiverStatus: settings.receiverStatus,
            clock: clock, elapsed: elapsed, deadline: deadline)
    }

    /// The loop.
    @inline(__always)
    private func drive<Reducer: PassReducer>(
        _ arrivals: PassArrivals<Sightings>, state: inout PassState, reducer: inout Reducer
    ) async throws -> PassEnd {
        switch arrivals {
        case .recorded(var recorded):
            return try await state.driveBatches(&recorded.source, reducer: &reducer)
        case .live(let feed):
            if state.tellUnixTime(to: &reducer) == .done { return .reducerDone }
            // The queue's drops told so far; and the latest tick, which bounds an arrival.
            var dropsTold = settings.drops.value
            var lastTick = PassTime.origin
            let tick = clocking.tick ?? .zero
            for await input in feed.inputs {
                let dropped = settings.drops.value
                if dropped != dropsTold {
                    let notice = PassNotice.inputsDropped(dropped - dropsTold, at: input.time ?? state.timeline.now ?? .origin)
                    dropsTold = dropped
                    if reducer.take(.notice(notice)) == .done { return .reducerDone }
                }
                switch input {
                case .sighting(let sighting):
                    let placed: PlacedSighting
                    switch clocking {
                    case .scan(_, _, _, let deadline):
                        // Stamped by the scan on this clock. Read late, past the deadline (the
                        // queue was behind): not taken.
                        if let deadline, let time = PassTime(checkedSeconds: sighting.time), time.sinceOrigin > deadline {
                            return .deadline
                        }
                        placed = state.place(sighting, placement: .stamped)
                    case .followingWallClock:
                        placed = state.place(sighting, placement: .ownTime)
                    case .replay, .live:
                        placed = state.place(sighting, placement: .joining(feed.elapsed))
                    case .liveCheckingArrivals:
                        // Those read before the tick that tells a stall waited through it: they
                        // arrive no later than a tick after the last one.
                        placed = state.place(sighting, placement: .arrival(min(feed.elapsed(), lastTick + tick)))
                    }
                    if state.tellClockNotices(to: &reducer) == .done { return .reducerDone }
                    if reducer.take(.sighting(placed)) == .done { return .reducerDone }
                case .tick(let time):
                    lastTick = max(lastTick, time)
                    if self.tick(at: time, state: &state, reducer: &reducer) == .done { return .reducerDone }
                    if case .scan(_, _, _, let deadline?) = clocking, time.sinceOrigin >= deadline { return .deadline }
                    if case .followingWallClock(_, _, let wallClock, let limit?) = clocking, state.timeline.now == nil,
                        let started = state.wallClockAtStart, let wallTime = wallClock(), wallTime - started >= limit
                    {
                        return .deadline
                    }
                case .ended(let time):
                    return state.end(at: clocking.isStampedByFeed ? time : state.timeline.now ?? time, reducer: &reducer)
                case .health(let change, let time):
                    // On a clock the feed stamps, the change moves it: one clock for the pass and
                    // its reducer.
                    if clocking.isStampedByFeed { state.timeline.advance(to: time) }
                    if reducer.take(.health(change, at: time)) == .done { return .reducerDone }
                case .receiverStatus(let change, let time):
                    if clocking.isStampedByFeed { state.timeline.advance(to: time) }
                    if reducer.take(.receiverStatus(change, at: time)) == .done { return .reducerDone }
                case .failed(let error):
                    throw error
                }
            }
            return .interrupted
        }
    }

    /// A live tick: the clock moves to it (to the wall clock's time, when following it), the
    /// pending telemetry is handed over, then the tick.
    private func tick<Reducer: PassReducer>(at time: PassTime, state: inout PassState, reducer: inout Reducer) -> PassStep {
        var time = time
        if case .followingWallClock(_, _, let wallClock, _) = clocking {
            // Until a receiver on Unix time is placed, the wall clock cannot be told on this one
            // (nor a wall clock beyond any pass time).
            guard let unixTime = wallClock(), let target = state.timeline.time(atUnixTime: unixTime),
                state.timeline.now.map({ target > $0 }) ?? true
            else {
                return .more
            }
            time = target
        }
        state.timeline.advance(to: time)
        state.collectTelemetry()
        if state.feedTelemetry(dueBy: nil, to: &reducer) == .done { return .done }
        return reducer.take(.tick(time))
    }
}

/// How a pass holds and bounds its inputs.
public struct SightingPassSettings: Sendable {
    /// Receivers on elapsed clocks told apart (`SightingTimeline`).
    public var maximumReceivers = SightingTimeline.standardMaximumReceivers
    /// Inputs a live pass holds for its reducer; beyond, the oldest sightings and ticks are
    /// dropped and counted in `drops`.
    public var queueLimit = 100_000
    public var drops = DropCounter()
    /// A live input's health changes and its receivers' statuses, merged with its sightings.
    public var health: AsyncStream<InputHealthChange>?
    public var receiverStatus: AsyncStream<ReceiverStatusChange>?
    /// Whether a recording is decoded on a task of its own, a few batches ahead of the
    /// reducer: worth it where the reducer's work per sighting is as heavy as the decoding
    /// (the watch), so that a replay runs at the speed of the slower of the two, not of both.
    public var readsAhead = false

    public init() {}
}

extension PassClocking {
    /// Whether the feed's stamps are the pass's clock (the end's time is then the feed's).
    var isStampedByFeed: Bool {
        switch self {
        case .live, .scan, .liveCheckingArrivals: true
        case .replay, .followingWallClock: false
        }
    }

    /// How far a sighting may stand from its arrival before its receiver's clock is taken as
    /// wrong (`SightingTimeline`).
    var arrivalTolerance: Duration? {
        if case .liveCheckingArrivals(_, _, let tolerance) = self { return tolerance }
        return nil
    }

    var tick: Duration? {
        switch self {
        case .replay: nil
        case .live(let tick, _), .scan(let tick, _, _, _), .followingWallClock(let tick, _, _, _),
            .liveCheckingArrivals(let tick, _, _):
            tick
        }
    }
}

/// The pass's clock and its pending telemetry.
struct PassState {
    var timeline: SightingTimeline
    /// The telemetry taken from the source, not yet handed over.
    private var pending: PendingTelemetry
    /// The wall clock when a pass following it started (the time since the Unix epoch).
    var wallClockAtStart: Duration?
    /// Whether the reducer was told where Unix time stands (`PassNotice.unixTimeKnown`).
    private(set) var unixTimeTold = false

    init(telemetry: TelemetryInbox?, maximumReceivers: Int, arrivalTolerance: Duration?) {
        self.pending = PendingTelemetry(inbox: telemetry)
        self.timeline = SightingTimeline(maximumReceivers: maximumReceivers, arrivalTolerance: arrivalTolerance)
    }

    /// Tells the reducer where Unix time stands on the clock, the first time it is known.
    @inline(__always)
    mutating func tellUnixTime<Reducer: PassReducer>(to reducer: inout Reducer) -> PassStep {
        guard !unixTimeTold, timeline.knowsUnixTime, let offset = timeline.unixTime(at: .origin) else { return .more }
        unixTimeTold = true
        return reducer.take(.notice(.unixTimeKnown(offset: offset)))
    }

    /// Tells the reducer what placing the last sighting found of its receiver's clock.
    @inline(__always)
    mutating func tellClockNotices<Reducer: PassReducer>(to reducer: inout Reducer) -> PassStep {
        if tellUnixTime(to: &reducer) == .done { return .done }
        guard !timeline.clockNotices.isEmpty else { return .more }
        for notice in timeline.takeClockNotices() where reducer.take(.notice(.receiverClock(notice))) == .done { return .done }
        return .more
    }

    /// How a sighting's time is read.
    enum Placement {
        /// Its own time, its receiver joining where the clock stands.
        case ownTime
        /// Its own time, its receiver joining at the time `elapsed` reads when it arrives.
        case joining(@Sendable () -> PassTime)
        /// Already on this clock.
        case stamped
        /// Its own time, checked against its arrival at this time of the clock (its receiver
        /// joining there).
        case arrival(PassTime)
    }

    @inline(__always)
    mutating func place(_ sighting: Sighting, placement: Placement) -> PlacedSighting {
        let time: PassTime?
        switch placement {
        case .ownTime: time = timeline.place(sighting)?.time
        case .joining(let elapsed): time = timeline.place(sighting, joining: elapsed)?.time
        case .arrival(let arrival): time = timeline.place(sighting, arrival: arrival)?.time
        case .stamped:
            time = PassTime(checkedSeconds: sighting.time)
            if let time { timeline.advance(to: time) }
        }
        return PlacedSighting(sighting: sighting, time: time, clock: timeline.now ?? time ?? .origin)
    }

    var hasPendingTelemetry: Bool { pending.hasReadings }

    /// Takes what the source decoded since the last call.
    mutating func collectTelemetry() { pending.collect() }

    /// Hands over the pending readings placed at or before `dueBy` (every one with `nil`),
    /// each at its place, never later than the clock: a reading from a receiver not placed yet
    /// is due at once, where the clock stands. Only readings decoded ahead of a replay wait,
    /// so the pending ones are bounded by the reader's lead.
    mutating func feedTelemetry<Reducer: PassReducer>(dueBy: PassTime?, to reducer: inout Reducer) -> PassStep {
        while let (reading, placed) = pending.next(dueBy: dueBy, placedAt: { [timeline] heard in
            ReceiverTime(checkedSeconds: heard.time, clock: heard.clock).flatMap { timeline.knownTime(of: $0, receiver: heard.receiver) }
        }) {
            let now = timeline.now ?? placed ?? .origin
            if reducer.take(.telemetry(reading, at: min(placed ?? now, now))) == .done { return .done }
        }
        return .more
    }

    /// A recording's loop: each batch's sightings placed by their own times and fed in order,
    /// the telemetry decoded with (or ahead of) the batch handed over when the clock reaches
    /// it, then the end. Generic over the reducer only, so that it is specialized for each.
    mutating func driveBatches<Reducer: PassReducer>(
        _ batches: inout any SightingBatchIterator, reducer: inout Reducer
    ) async throws -> PassEnd {
        var batch: [Sighting] = []
        do {
            while try await batches.nextBatch(into: &batch) {
                collectTelemetry()
                for sighting in batch {
                    if Task.isCancelled { return interrupt(reducer: &reducer) }
                    let placed = place(sighting, placement: .ownTime)
                    if !unixTimeTold, tellUnixTime(to: &reducer) == .done { return .reducerDone }
                    if reducer.take(.sighting(placed)) == .done { return .reducerDone }
                    if hasPendingTelemetry, feedTelemetry(dueBy: timeline.now, to: &reducer) == .done { return .reducerDone }
                }
            }
        } catch {
            // A reader may end with an error of its own when it is cancelled: still a stop.
            if Task.isCancelled { return interrupt(reducer: &reducer) }
            throw error
        }
        if Task.isCancelled { return interrupt(reducer: &reducer) }
        return end(at: timeline.now, reducer: &reducer)
    }

    /// A replay was cancelled: the telemetry read so far is handed over (what was read is taken).
    mutating func interrupt<Reducer: PassReducer>(reducer: inout Reducer) -> PassEnd {
        collectTelemetry()
        return feedTelemetry(dueBy: nil, to: &reducer) == .done ? .reducerDone : .interrupted
    }

    /// The input ended at `time`: the telemetry left, then `.ended`.
    mutating func end<Reducer: PassReducer>(at time: PassTime?, reducer: inout Reducer) -> PassEnd {
        collectTelemetry()
        if feedTelemetry(dueBy: nil, to: &reducer) == .done { return .reducerDone }
        return reducer.take(.ended(at: time)) == .done ? .reducerDone : .inputEnded
    }
}

/// Where a pass's sightings come from: a recording, read in batches where its reader decodes
/// them so (a batch per await rather than a sighting, which at millions of sightings is most
/// of the cost), or a live feed.
enum PassArrivals<Sightings: AsyncSequence<Sighting, any Error> & Sendable> {
    case recorded(RecordedArrivals<Sightings>)
    case live(LiveSightingFeed)

    func stop() {
        switch self {
        case .recorded(let recorded): recorded.stop()
        case .live(let feed): feed.stop()
        }
    }

    /// Where the clock stands when the task was cancelled: a live feed's own time, a
    /// recording's latest placed time.
    func interruptedAt(_ now: PassTime?) -> PassTime? {
        switch self {
        case .recorded: now
        case .live(let feed): feed.elapsed()
        }
    }
}

/// A recording's sightings, a batch at a time where it can (a recording's reader), else one
/// by one (any other sequence).
struct RecordedArrivals<Sightings: AsyncSequence<Sighting, any Error> & Sendable> {
    var source: any SightingBatchIterator

    init(_ sightings: Sightings, readingAhead: Bool) {
        if readingAhead {
            source = AheadOfTheReducer(readAhead: ReadAhead(sightings))
        } else if let batched = sightings as? any SightingBatchSequence {
            source = batched.makeBatchIterator()
        } else {
            source = OneByOne(iterator: sightings.makeAsyncIterator())
        }
    }

    func stop() {
        (source as? AheadOfTheReducer)?.readAhead.stop()
    }

    /// A recording decoded on a task of its own (`SightingPassSettings.readsAhead`).
    private struct AheadOfTheReducer: SightingBatchIterator {
        let readAhead: ReadAhead<Sighting>

        mutating func nextBatch(into sightings: inout [Sighting]) async throws -> Bool {
            guard let batch = try await readAhead.next() else { return false }
            sightings = batch
            return true
        }
    }

    /// A sequence read one sighting per batch.
    private struct OneByOne: SightingBatchIterator {
        var iterator: Sightings.AsyncIterator

        mutating func nextBatch(into sightings: inout [Sighting]) async throws -> Bool {
            guard let sighting = try await iterator.next(isolation: nil) else { return false }
            sightings.removeAll(keepingCapacity: true)
            sightings.append(sighting)
            return true
        }
    }
}
