import BeaconCore
import BeaconProfiles

/// How one battery beacon came out of `provision --hardware`.
public enum HardwareBeaconStatus: String, Hashable, Sendable, CaseIterable, Codable {
    /// Fields written, read back equal, and (unless a dry run) verified on the air.
    case provisioned
    /// The beacon already held the manifest's settings: nothing was written.
    case alreadyCorrect = "already-correct"
    /// A dry run: connected and read, nothing written (`wouldWrite` lists what would be).
    case dryRun = "dry-run"
    /// The password was refused; the beacon is left alone for the rest of the run.
    case refused
    /// Not heard advertising connectably, or the connection failed before anything was written.
    case unreachable
    /// No `mac:` and no beacon assigned to it.
    case unmatched
    /// Writing started but did not finish (or the read-back differs): `written` and `notWritten` say which.
    case partlyWritten = "partly-written"
    /// Written and read back, but the verification scan did not hear it right.
    case notVerified = "not-verified"
    /// The beacon's profile cannot carry a field the manifest sets, or no profile fits.
    case unsupported
    /// It advertises another manifest beacon's identity: not overwritten without `--force`.
    case conflict

    /// Whether this beacon is done as asked.
    public var succeeded: Bool {
        switch self {
        case .provisioned, .alreadyCorrect, .dryRun: true
        default: false
        }
    }
}

/// One beacon's result, for the table, the JSON and the exit status.
public struct HardwareBeaconResult: Hashable, Sendable {
    public var beaconID: String
    public var address: BluetoothAddress?
    public var profile: String?
    public var status: HardwareBeaconStatus
    /// Fields the beacon took (read back equal).
    public var written: [BeaconField] = []
    /// Fields asked for that the beacon did not take, or whose fate is unknown.
    public var notWritten: [BeaconField] = []
    /// A dry run's differences.
    public var wouldWrite: [BeaconField] = []
    public var passwordChanged = false
    /// `mac:` was written into the manifest (`--assign nearest`).
    public var addressAssigned = false
    /// The verification's verdict (`ok`, `missing`, …), when a pass ran for it.
    public var verdict: String?
    /// What happened in a sentence, with what to do next when it did not go well.
    public var detail: String

    public init(beaconID: String, address: BluetoothAddress?, profile: String? = nil, status: HardwareBeaconStatus, detail: String) {
        self.beaconID = beaconID
        self.address = address
        self.profile = profile
        self.status = status
        self.detail = detail
    }
}

/// The whole run.
public struct HardwareProvisioningResult: Hashable, Sendable {
    public var results: [HardwareBeaconResult]
    public var dryRun: Bool

    public init(results: [HardwareBeaconResult], dryRun: Bool) {
        self.results = results
        self.dryRun = dryRun
    }

    /// Every beacon asked for provisioned or already correct (and verified), or read in a dry run.
    public var passed: Bool { results.allSatisfy(\.status.succeeded) }

    public func count(_ status: HardwareBeaconStatus) -> Int { results.filter { $0.status == status }.count }
}

/// One write to a beacon, for `--log`: never a password, only whether one was set.
public struct ProvisioningWriteRecord: Hashable, Sendable, Codable {
    public var time: String
    public var beacon: String
    public var address: String
    public var profile: String
    /// `field: value as written` for each field written.
    public var values: [String: String]
    public var passwordChanged: Bool
    public var outcome: String

    public init(
        time: String, beacon: String, address: String, profile: String, values: [String: String], passwordChanged: Bool,
        outcome: String
    ) {
        self.time = time
        self.beacon = beacon
        self.address = address
        self.profile = profile
        self.values = values
        self.passwordChanged = passwordChanged
        self.outcome = outcome
    }

    enum CodingKeys: String, CodingKey {
        case time, beacon, address, profile, values, outcome
        case passwordChanged = "password_changed"
    }
}
