import BeaconCore

/// One input of a pass over sightings, in the order the pass takes them, on the pass's clock
/// (`PassTime`; `SightingPass`). Every reducer of sightings — a verification pass, a scan's
/// ranging, a monitoring run, a calibration's sampling — is fed these and nothing else: it
/// reads no clock, opens nothing, and can be tested by feeding it inputs.
public enum PassInput: Sendable {
    /// A sighting, placed once on the pass's clock.
    case sighting(PlacedSighting)
    /// A telemetry reading heard beside the sightings, handed over when the pass's clock
    /// reached it (`at`: its place, or where the clock stood when its receiver was unknown).
    case telemetry(TelemetryReading, at: PassTime)
    /// The pass's clock moved on with or without anything heard (a live pass's ticker, or the
    /// wall clock followed between a stream's sightings).
    case tick(PassTime)
    /// The input's health changed (a broker lost or back).
    case health(InputHealthChange, at: PassTime)
    /// A receiver said it is online or offline (its status topic).
    case receiverStatus(ReceiverStatusChange, at: PassTime)
    /// What the pass learnt of its own clock or queue (where Unix time stands, a receiver's
    /// clock found wrong, inputs dropped), before the input it concerns.
    case notice(PassNotice)
    /// The input ended: a recording's last sighting was read, a scan or a stream closed. `at`
    /// is where the clock stood; `nil` when nothing ever started it.
    case ended(at: PassTime?)
}

/// What a pass says of its own evidence: the reducers that tell times as dates or answer for
/// what they may have missed (the watch) take these; the others may ignore them.
public enum PassNotice: Sendable, Equatable {
    /// Where Unix time stands on the pass's clock, once known (a live pass: at its start, by
    /// the wall clock; a replay: at its first sighting on Unix time): the time since the Unix
    /// epoch of a pass time is its `sinceOrigin` plus `offset`. Said once, before the first
    /// input it concerns.
    case unixTimeKnown(offset: Duration)
    /// A receiver on Unix time whose clock disagrees with the pass's by more than its
    /// tolerance, or agrees again (`PassClocking.liveCheckingArrivals`), before its sighting.
    case receiverClock(ReceiverClockNotice)
    /// The pass's own queue dropped this many more inputs (it fell behind a live source),
    /// noticed at `at` on its clock.
    case inputsDropped(Int, at: PassTime)
}

/// A sighting and its place on a pass's clock. The sighting keeps its receiver's own time
/// (`sighting.time`, on `sighting.clock`), never overwritten; `time` is where that falls on
/// the pass's clock.
public struct PlacedSighting: Sendable {
    public var sighting: Sighting
    /// Its time on the pass's clock; `nil` when its receiver is one more than the pass tells
    /// apart (`SightingTimeline.standardMaximumReceivers`), or its own time cannot be read
    /// (`ReceiverTime`), so that it cannot be placed.
    public var time: PassTime?
    /// Where the pass's clock stands once it was placed: its latest time (never moved back by
    /// a sighting that came late).
    public var clock: PassTime

    public init(sighting: Sighting, time: PassTime?, clock: PassTime) {
        self.sighting = sighting
        self.time = time
        self.clock = clock
    }
}

/// What a reducer says after taking an input: go on, or the pass is over (every beacon
/// decided, a duration reached).
public enum PassStep: Sendable {
    case more
    case done
}

/// A pure state machine over a pass's inputs: state plus input gives the next state (and
/// whatever the conformer hands to its outputs). `SightingPass` feeds it.
public protocol PassReducer {
    mutating func take(_ input: PassInput) -> PassStep
}
