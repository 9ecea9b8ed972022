import BeaconCore

/// The verdict on one beacon, or on one identity nobody expected.
public enum VerdictStatus: String, Hashable, Sendable, CaseIterable, Comparable {
    /// Heard at least K times with the right identity, measured power and address, at its
    /// interval, from one device.
    case ok
    /// Not heard before the timeout.
    case missing
    /// Heard, but fewer than K times before the timeout, and nothing wrong in what was heard.
    case weak
    /// The measured-power byte differs from what the manifest (or the advertiser) says.
    case wrongPower = "wrong-power"
    /// Heard only from addresses other than the one the manifest pins.
    case wrongAddress = "wrong-address"
    /// The identity came from two or more devices at once.
    case duplicate
    /// Advertising markedly less often than its configured interval.
    case slow
    /// Not in the manifest, yet using one of the fleet's UUIDs.
    case unexpected
    /// Still open when the pass could no longer see (its input lost for as long as the
    /// timeout, or the pass stopped while the input was not delivering): nothing is said of
    /// it, neither that it is fine nor that it is gone. The watch's word for the same.
    case unmonitored

    public var passed: Bool { self == .ok }

    /// Report order: the worst first. A duplicate confuses every phone nearby; a wrong
    /// address points at the wrong device; a wrong power skews every distance; a slow
    /// beacon only answers late.
    private var rank: Int {
        switch self {
        case .duplicate: return 0
        case .unexpected: return 1
        case .missing: return 2
        case .wrongAddress: return 3
        case .wrongPower: return 4
        case .slow: return 5
        case .weak: return 6
        case .unmonitored: return 7
        case .ok: return 8
        }
    }

    public static func < (lhs: VerdictStatus, rhs: VerdictStatus) -> Bool { lhs.rank < rhs.rank }
}

/// One thing found wrong with a beacon. A beacon can have several; its status is the worst.
public enum VerificationFinding: Hashable, Sendable {
    case wrongPower(expected: MeasuredPowerExpectation, heard: [MeasuredPowerCount])
    /// `heard`: the addresses it came from instead, most receptions first.
    case wrongAddress(expected: String, heard: [String])
    /// Every address it came from, most receptions first.
    case duplicate(addresses: [String])
    /// `shortestGap` over `gaps` gaps between advertising events.
    case slow(shortestGap: Duration, gaps: Int, configuredMilliseconds: Int)

    public var status: VerdictStatus {
        switch self {
        case .wrongPower: return .wrongPower
        case .wrongAddress: return .wrongAddress
        case .duplicate: return .duplicate
        case .slow: return .slow
        }
    }
}

/// The verdict on one expected beacon.
public struct BeaconVerdict: Hashable, Sendable {
    public var beacon: ExpectedBeacon
    public var status: VerdictStatus
    /// Everything found wrong, worst first; empty for `ok`, `missing`, `weak` and `unmonitored`.
    public var findings: [VerificationFinding]
    public var observation: BeaconObservation
    /// When the verdict was reached, on the pass's clock (its origin: the start).
    public var decidedAt: PassTime
    /// Whether it was reached before the timeout (or the end of the input).
    public var decidedEarly: Bool
    /// Its battery, judged beside the verdict (docs/health.md); `nil` when the manifest
    /// expects no telemetry from it and none was heard. Held by reference: a fleet's verdicts
    /// are many, and most carry none, so a verdict grows by a pointer, not by a report.
    public var battery: BatteryReport? {
        get { batteryBox?.report }
        set { batteryBox = newValue.map(BatteryReportBox.init) }
    }
    private var batteryBox: BatteryReportBox?

    /// Whether the beacon passes: `ok`, and no battery finding beside it.
    public var passed: Bool {
        status == .ok && !(battery?.status.isFinding ?? false)
    }

    public init(
        beacon: ExpectedBeacon, status: VerdictStatus, findings: [VerificationFinding],
        observation: BeaconObservation, decidedAt: PassTime, decidedEarly: Bool
    ) {
        self.beacon = beacon
        self.status = status
        self.findings = findings
        self.observation = observation
        self.decidedAt = decidedAt
        self.decidedEarly = decidedEarly
    }
}

/// A `BatteryReport` behind a reference (`BeaconVerdict.battery`).
private final class BatteryReportBox: Hashable, Sendable {
    let report: BatteryReport
    init(_ report: BatteryReport) { self.report = report }
    static func == (lhs: BatteryReportBox, rhs: BatteryReportBox) -> Bool { lhs.report == rhs.report }
    func hash(into hasher: inout Hasher) { hasher.combine(report) }
}

/// An identity heard that uses one of the fleet's UUIDs but is not in the manifest.
public struct UnexpectedBeacon: Hashable, Sendable {
    public var observation: BeaconObservation
    /// The venue whose (UUID, major) it uses, when exactly one venue uses that pair.
    public var likelyVenue: String?

    public init(observation: BeaconObservation, likelyVenue: String?) {
        self.observation = observation
        self.likelyVenue = likelyVenue
    }

    public var identity: BeaconIdentity { observation.identity }
}

/// A beacon of the manifest outside this pass (another venue or host) that was heard.
public struct OtherManifestBeacon: Hashable, Sendable {
    public var beaconID: String
    public var identity: BeaconIdentity
    public var sightings: Int

    public init(beaconID: String, identity: BeaconIdentity, sightings: Int) {
        self.beaconID = beaconID
        self.identity = identity
        self.sightings = sightings
    }
}
