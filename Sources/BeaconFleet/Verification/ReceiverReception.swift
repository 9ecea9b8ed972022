/// How much of what is on the air each receiver hears, measured on the beacons of the pass:
/// the advertising events each receiver heard of them against the events their configured
/// intervals put on the air between the first and the last it heard.
///
/// A long gap between two receptions of a beacon is a slow beacon or lost packets. The
/// policy weighs that evidence assuming a receiver loses at most half the packets
/// (`VerificationPolicy.assumedLoss`); a receiver seen to lose far more of the other
/// beacons' packets (a scanner starved of CPU, a virtual machine under load, a gateway that
/// drops) makes every beacon it hears look slow, and its gaps then prove less. A beacon's
/// own receptions are left out of its receiver's figure: one slow beacon must not excuse
/// itself, and a pass of one beacon keeps the assumption.
struct ReceiverReception: Sendable {
    /// Where each receiver's figures are in the arrays below: a chain's pass hears
    /// thousands of receivers, so a receiver is found by its hash, not by a walk.
    private var indexByReceiver: [String: Int] = [:]
    /// Per receiver: the gaps heard between advertising events, and the advertising
    /// intervals they spanned (each gap over its beacon's configured interval).
    private var heardGaps: [Int] = []
    private var spannedIntervals: [Double] = []
    /// The previous gap's receiver and its index: a receiver's sightings usually come in
    /// runs (a box's batch), so most gaps skip the hashing.
    private var lastReceiver: String?
    private var lastIndex = 0

    /// Receivers told apart; further ones' gaps are not counted, so that a source naming a
    /// receiver per sighting cannot grow memory, and their loss cannot be told
    /// (`isBeyondBound`): their gaps prove nothing early (`VerdictRules.intervalEvidence`).
    static let standardMaximumReceivers = 4096
    let maximumReceivers: Int

    init(maximumReceivers: Int = Self.standardMaximumReceivers) {
        self.maximumReceivers = maximumReceivers
    }

    /// Whether `receiver` came after every place was taken: what it loses is unknown, so a
    /// long gap it heard may be its own loss however much of it there is.
    func isBeyondBound(_ receiver: String) -> Bool {
        heardGaps.count >= maximumReceivers && indexByReceiver[receiver] == nil
    }

    /// Below this many intervals spanned by the other beacons a receiver's loss is not
    /// estimated: a handful of gaps says little of it.
    static let minimumSpannedIntervals = 20.0

    /// One gap between two advertising events of a beacon configured at
    /// `intervalMilliseconds`, heard by `receiver`.
    mutating func add(gap: Duration, intervalMilliseconds: Int, receiver: String) {
        guard intervalMilliseconds > 0, gap.attoseconds >= 0 else { return }
        let intervals = Self.intervals(in: gap, intervalMilliseconds: intervalMilliseconds)
        let index: Int
        if receiver == lastReceiver {
            index = lastIndex
        } else if let found = indexByReceiver[receiver] {
            index = found
        } else if heardGaps.count < maximumReceivers {
            index = heardGaps.count
            indexByReceiver[receiver] = index
            heardGaps.append(0)
            spannedIntervals.append(0)
        } else {
            return
        }
        lastReceiver = receiver
        lastIndex = index
        heardGaps[index] += 1
        spannedIntervals[index] += intervals
    }

    /// The share of packets `events`' receiver misses of the other beacons of the pass
    /// (`events` being what it heard of one beacon configured at `intervalMilliseconds`,
    /// left out), from 0 to just under 1; `nil` when too little of the others was heard
    /// to say.
    func loss(of events: ReceiverEvents, intervalMilliseconds: Int) -> Double? {
        guard intervalMilliseconds > 0, let index = indexByReceiver[events.receiver] else { return nil }
        let ownIntervals = Self.intervals(in: events.span, intervalMilliseconds: intervalMilliseconds)
        let gaps = heardGaps[index] - events.gaps
        let spanned = spannedIntervals[index] - ownIntervals
        guard gaps > 0, spanned >= Self.minimumSpannedIntervals else { return nil }
        // Each gap is one packet heard after `spanned / gaps` intervals on average.
        let heard = min(1, Double(gaps) / spanned)
        return min(1 - heard, Self.highestLoss)
    }

    /// How many intervals of `intervalMilliseconds` `span` covers. A gap (under 9 s) is
    /// divided as integer attoseconds, which inline, at every reception; a longer span as a
    /// `Duration` (a call into the runtime).
    private static func intervals(in span: Duration, intervalMilliseconds: Int) -> Double {
        guard let attoseconds = Int64(exactly: span.attoseconds) else { return span / .milliseconds(intervalMilliseconds) }
        return Double(attoseconds) / (Double(intervalMilliseconds) * 1e15)
    }

    /// Losses are never taken as total: a gap still counts for something.
    static let highestLoss = 0.999
}
