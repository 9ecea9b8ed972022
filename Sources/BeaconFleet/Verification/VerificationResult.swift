import BeaconCore

/// Why a verification pass ended.
public enum VerificationEndReason: String, Hashable, Sendable {
    /// Every expected beacon was decided before the timeout.
    case allDecided = "all-decided"
    case timeout
    /// The sightings ran out (the end of a capture or of a stream).
    case inputEnded = "input-ended"
    /// Stopped by the user (SIGINT, SIGTERM) before the timeout.
    case interrupted
    /// The input stopped delivering (a broker lost) and was not back within the timeout:
    /// the beacons still open are `unmonitored`, not judged by the silence.
    case inputLost = "input-lost"
}

/// Time a pass's input said it was not delivering: not counted against the beacons
/// (docs/verify.md, "Inputs and time").
public struct InputBlindness: Hashable, Sendable {
    /// Seconds the input was not delivering while the pass ran.
    public var seconds: Double
    /// Whether it was not delivering when the pass ended: the beacons still open then are
    /// `unmonitored`.
    public var atEnd: Bool
    /// Whether it never delivered at all.
    public var neverDelivered: Bool
    /// The last reason it gave for not delivering (a broker's error), when it gave one.
    public var lastReason: String?

    public init(seconds: Double, atEnd: Bool, neverDelivered: Bool, lastReason: String?) {
        self.seconds = seconds
        self.atEnd = atEnd
        self.neverDelivered = neverDelivered
        self.lastReason = lastReason
    }
}

/// Telemetry readings a pass took, and those paired with no beacon (docs/health.md).
public struct TelemetryCounts: Hashable, Sendable {
    public var received = 0
    public var unpaired = 0

    public init(received: Int = 0, unpaired: Int = 0) {
        self.received = received
        self.unpaired = unpaired
    }
}

/// The outcome of a verification pass: a verdict per expected beacon, and what else was heard.
public struct VerificationResult: Hashable, Sendable {
    /// What the pass covered: "fleet jays-donuts, venue cupertino".
    public var scope: String
    public var policy: VerificationPolicy
    /// One per expected beacon, in manifest order.
    public var verdicts: [BeaconVerdict]
    /// Identities using a fleet UUID that the manifest does not list, in order of first reception.
    public var unexpected: [UnexpectedBeacon]
    /// Receptions of further unexpected identities, beyond
    /// `VerificationEngine.maximumTrackedUnexpected` of them: counted, not told apart.
    public var untrackedUnexpectedSightings: Int
    /// Beacons of the manifest outside the pass that were heard.
    public var otherManifestBeacons: [OtherManifestBeacon]
    /// Every reception taken in, of any identity.
    public var sightings: Int
    /// Receptions of identities outside the fleet's UUIDs.
    public var ignoredSightings: Int
    /// From the start to the end of the pass.
    public var duration: Duration
    public var endReason: VerificationEndReason
    /// Reports lost between the controller and the verifier because a queue was full (a
    /// host that could not keep up). Non-zero means the pass did not see everything the
    /// controller heard: `missing`, `weak` and `slow` may be losses, not the beacon's fault.
    public var lostReports: Int = 0
    /// What the input itself says the verdicts may lack (records of a capture that could not
    /// be decoded): every report shows these beside `lossWarning`.
    public var inputWarnings: [String] = []
    /// Telemetry readings the pass took, and those it could pair with no beacon.
    public var telemetry: TelemetryCounts
    /// When the input said it was not delivering (a broker lost) during the pass: for how
    /// long, and whether it still was at the end. `nil` when it always delivered, or cannot tell.
    public var blindness: InputBlindness?

    public init(
        scope: String, policy: VerificationPolicy, verdicts: [BeaconVerdict], unexpected: [UnexpectedBeacon],
        untrackedUnexpectedSightings: Int = 0, otherManifestBeacons: [OtherManifestBeacon] = [], sightings: Int,
        ignoredSightings: Int, duration: Duration, endReason: VerificationEndReason,
        telemetry: TelemetryCounts = TelemetryCounts()
    ) {
        self.telemetry = telemetry
        self.scope = scope
        self.policy = policy
        self.verdicts = verdicts
        self.unexpected = unexpected
        self.untrackedUnexpectedSightings = untrackedUnexpectedSightings
        self.otherManifestBeacons = otherManifestBeacons
        self.sightings = sightings
        self.ignoredSightings = ignoredSightings
        self.duration = duration
        self.endReason = endReason
    }

    /// What every report says when reports were lost, or `nil` when none were.
    public var lossWarning: String? {
        guard lostReports > 0 else { return nil }
        let judged = verdicts.contains { [.missing, .weak, .slow].contains($0.status) }
        return "\(lostReports) report\(lostReports == 1 ? " was" : "s were") lost between the controller and the verifier "
            + "(the host could not keep up)"
            + (judged ? ": the missing, weak and slow verdicts may be wrong; verify again on a less loaded host" : "")
    }

    /// What every report says when the input did not deliver for a while, or `nil`.
    public var blindnessWarning: String? {
        guard let blindness else { return nil }
        let last = blindness.lastReason.map { " (last: \($0))" } ?? ""
        let lost = blindness.neverDelivered
            ? "the input delivered nothing before the pass ended\(last)"
            : "the input did not deliver for \(VerdictWording.seconds(blindness.seconds))\(last)"
        guard blindness.atEnd else { return lost + "; that time was not counted against the beacons" }
        let unmonitored = count(.unmonitored)
        return lost + (blindness.neverDelivered ? ": " : " and was not delivering when the pass ended: ")
            + (unmonitored == 0 ? "every beacon was decided before" : "\(NumberText.count(unmonitored, "beacon")) could not be judged")
            + "; check the input (the broker and its network), then verify again"
    }

    /// True when the pass did not pass only because it could not see: no beacon failed on
    /// evidence, but some are `unmonitored` (the command's exit status then says the input
    /// failed, not the beacons).
    public var failedOnlyForBlindness: Bool {
        !passed && verdicts.allSatisfy { $0.passed || ($0.status == .unmonitored && !($0.battery?.status.isFinding ?? false)) }
            && unexpected.isEmpty && untrackedUnexpectedSightings == 0
    }

    /// Everything a report must warn of: lost reports, time the input was blind, then what
    /// the input could not give.
    public var warnings: [String] {
        (lossWarning.map { [$0] } ?? []) + (blindnessWarning.map { [$0] } ?? []) + inputWarnings
    }

    /// Every receiver that heard a beacon of the pass or an unexpected identity, sorted.
    /// Reports show who heard what when there is more than one.
    public var receivers: [String] {
        let observations = verdicts.map(\.observation) + unexpected.map(\.observation)
        return Set(observations.flatMap { $0.receivers.map(\.receiver) }).sorted()
    }

    /// Whether more than one receiver heard a beacon of the pass or an unexpected identity
    /// (`receivers.count > 1`, without gathering a fleet's receivers).
    public var heardBySeveralReceivers: Bool {
        var first: String?
        func another(_ observation: BeaconObservation) -> Bool {
            for receiver in observation.receivers {
                guard let seen = first else {
                    first = receiver.receiver
                    continue
                }
                if seen != receiver.receiver { return true }
            }
            return false
        }
        return verdicts.contains { another($0.observation) } || unexpected.contains { another($0.observation) }
    }

    /// True when every beacon is ok, no battery is low or unchecked where the manifest
    /// expects telemetry, and nothing unexpected uses the fleet's UUIDs.
    public var passed: Bool {
        verdicts.allSatisfy(\.passed) && unexpected.isEmpty && untrackedUnexpectedSightings == 0
    }

    /// How many beacons' batteries have `status`.
    public func count(battery status: BatteryReport.Status) -> Int {
        verdicts.count { $0.battery?.status == status }
    }

    /// Whether any beacon has a battery report: reports show the battery column only then.
    public var hasBatteryReports: Bool {
        verdicts.contains { $0.battery != nil }
    }

    /// The unexpected identities told apart (at most `VerificationEngine.maximumTrackedUnexpected`).
    public var unexpectedCount: Int { unexpected.count }

    /// How many beacons got `status` (`unexpected` counts the unexpected identities).
    public func count(_ status: VerdictStatus) -> Int {
        status == .unexpected ? unexpectedCount : verdicts.count { $0.status == status }
    }

    /// The venues in manifest order, each with its verdicts.
    public var verdictsByVenue: [(venueID: String, verdicts: [BeaconVerdict])] {
        var order: [String] = []
        var groups: [String: [BeaconVerdict]] = [:]
        for verdict in verdicts {
            let venue = verdict.beacon.venueID
            if groups[venue] == nil { order.append(venue) }
            groups[venue, default: []].append(verdict)
        }
        return order.map { ($0, groups[$0] ?? []) }
    }
}
