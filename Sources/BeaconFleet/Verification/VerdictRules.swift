#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How evidence becomes findings. Pure functions of what was heard; the engine decides
/// when to apply them.
enum VerdictRules {
    /// What the receptions say about the interval of `track` (the principal address).
    enum IntervalEvidence: Equatable {
        /// A gap of at most one interval was heard: the beacon advertises fast enough.
        case fastEnough
        /// Gaps all longer, and so many lost packets needed to explain them on a healthy
        /// beacon (`VerificationPolicy.slowEvidenceLosses`, weighed against what the
        /// receivers lose of the other beacons): slow, without waiting for the timeout.
        case slow(shortestGap: Duration, gaps: Int)
        /// Some gaps, all longer, but too few to be sure yet.
        case suspect(shortestGap: Duration, gaps: Int)
        /// Fewer than two advertising events heard.
        case none
        /// Heard only through gateways that throttle or sample (`SightingEvidence`): no gap
        /// between their reports says anything of the beacon's interval, and none will.
        case unmeasurable
    }

    /// `reception`: what the receivers hear of the other beacons; without it, every
    /// receiver is taken to lose at most `VerificationPolicy.assumedLoss` of the packets.
    static func intervalEvidence(
        _ track: AddressObservation?, intervalMilliseconds: Int, policy: VerificationPolicy,
        reception: ReceiverReception? = nil
    ) -> IntervalEvidence {
        guard let track else { return .none }
        if track.sightings > 0, track.eventsByReceiver.isEmpty { return .unmeasurable }
        guard let shortest = track.shortestGap else { return .none }
        if shortest <= policy.slowThreshold(intervalMilliseconds: intervalMilliseconds) { return .fastEnough }
        // Each receiver's gaps are evidence of their own (its packets are lost
        // independently), so the improbability of the gaps on a healthy beacon adds up over
        // receivers: `losses` packets in a row lost with per-packet loss `p` has probability
        // p^losses, whose logarithm adds. A receiver seen to lose more of the other beacons'
        // packets than the policy assumes makes its gaps weaker evidence: a scanner that
        // hears one packet in ten of every beacon makes them all look slow.
        let needed = Double(policy.slowEvidenceLosses) * -log(VerificationPolicy.assumedLoss)
        var evidence = 0.0
        for receiver in track.eventsByReceiver {
            guard let gap = receiver.shortestGap else { continue }
            // A receiver beyond the ones whose loss is measured: its gaps may all be its own
            // losses, so they prove nothing before the timeout.
            if reception?.isBeyondBound(receiver.receiver) == true { continue }
            let lossesPerGap = policy.lostPackets(inGap: gap, intervalMilliseconds: intervalMilliseconds)
            let loss = max(
                VerificationPolicy.assumedLoss,
                reception?.loss(of: receiver, intervalMilliseconds: intervalMilliseconds) ?? VerificationPolicy.assumedLoss)
            evidence += Double(lossesPerGap) * Double(receiver.gaps) * -log(loss)
        }
        // A hair of tolerance: sums of products may round either way of the same value.
        if evidence >= needed * (1 - 1e-12) {
            return .slow(shortestGap: shortest, gaps: track.gaps)
        }
        return .suspect(shortestGap: shortest, gaps: track.gaps)
    }

    /// Everything wrong with what was heard of `beacon`, worst first. With `final`, the
    /// interval is judged on whatever gaps there are (the timeout came, no more will).
    static func findings(
        for beacon: ExpectedBeacon, observation: BeaconObservation, principal: AddressObservation?,
        policy: VerificationPolicy, reception: ReceiverReception? = nil, final: Bool
    ) -> [VerificationFinding] {
        var findings: [VerificationFinding] = []
        let addresses = observation.addresses.map(\.address)

        if severalDevices(observation.addresses) {
            findings.append(.duplicate(addresses: addresses))
        }
        if let pinned = beacon.expectedAddress?.description, addresses.contains(where: { $0 != pinned }) {
            // With a duplicate that includes the pinned address, the duplicate says it all.
            if !addresses.contains(pinned) || findings.isEmpty {
                findings.append(.wrongAddress(expected: pinned, heard: addresses.filter { $0 != pinned }))
            }
        }
        if observation.measuredPowers.contains(where: { !beacon.measuredPower.accepts($0.value) }) {
            findings.append(.wrongPower(expected: beacon.measuredPower, heard: observation.measuredPowers))
        }
        switch intervalEvidence(principal, intervalMilliseconds: beacon.intervalMilliseconds, policy: policy, reception: reception) {
        case .slow(let gap, let gaps):
            findings.append(.slow(shortestGap: gap, gaps: gaps, configuredMilliseconds: beacon.intervalMilliseconds))
        case .suspect(let gap, let gaps) where final:
            findings.append(.slow(shortestGap: gap, gaps: gaps, configuredMilliseconds: beacon.intervalMilliseconds))
        case .suspect, .fastEnough, .none, .unmeasurable:
            break
        }
        return findings.sorted { $0.status < $1.status }
    }

    /// Whether the addresses are two devices or more. Two addresses are one device only
    /// when both are private (rotating) and were never heard at the same time: the device
    /// changed its address. Public and static random addresses do not change while a device
    /// runs, so two of them are two devices.
    static func severalDevices(_ addresses: [AddressObservation]) -> Bool {
        for (index, first) in addresses.enumerated() {
            for second in addresses[(index + 1)...] {
                if !first.isPrivate || !second.isPrivate || first.overlaps(second) { return true }
            }
        }
        return false
    }
}
