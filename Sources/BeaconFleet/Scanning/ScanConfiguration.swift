import HCI

/// The two LE scanning command families (Core v5.4 Vol 4 Part E 3.1.1): a controller
/// takes one of them between two Resets, so a scan never mixes them.
public enum ScanFamily: String, Hashable, Sendable, CustomStringConvertible {
    /// LE Set Scan Parameters / LE Set Scan Enable; reports in LE Advertising Report.
    case legacy
    /// LE Set Extended Scan Parameters / Enable (Bluetooth 5.0, LE feature bit 12);
    /// reports in LE Extended Advertising Report.
    case extended

    public var description: String { rawValue }
}

/// Which scanning family to use: `auto` follows LE feature bit 12, as the Linux kernel
/// does, so that beaconctl and the kernel never disagree on a shared controller.
public enum ScanFamilyChoice: String, Hashable, Sendable, CaseIterable {
    case auto, legacy, extended

    /// The family for a controller with these features; `nil` when extended is forced on
    /// a controller without it.
    public func family(for features: LEFeatures) -> ScanFamily? {
        let hasExtended = features.contains(.extendedAdvertising)
        switch self {
        case .auto: return hasExtended ? .extended : .legacy
        case .legacy: return .legacy
        case .extended: return hasExtended ? .extended : nil
        }
    }
}

/// How `BeaconScanner` drives the controller.
public struct ScanConfiguration: Hashable, Sendable {
    public var family: ScanFamilyChoice
    /// How often the controller moves to the next advertising channel; 100 ms when `nil`.
    public var interval: ScanInterval?
    /// How long it listens each time; the interval when `nil`. Equal to the interval
    /// listens without a gap, so no advertisement is missed for lack of listening.
    public var window: ScanInterval?
    /// Whether this program has the controller to itself (USER channel, TCP, serial,
    /// virtual radio): then it starts with Reset and sets both event masks. On the kernel's
    /// RAW channel neither happens: a Reset would pull the controller from under bluetoothd,
    /// and the kernel already unmasks LE Meta and the report subevents it needs.
    public var access: ControllerAccess
    /// After this long without any advertising report the controller is presumed quiet:
    /// it is logged and scanning is enabled again.
    public var quietAfter: Duration
    /// The `receiver` of every sighting; the controller's transport name when `nil`.
    public var receiver: String?
    /// Sightings a session holds for a consumer that falls behind; `ScanSession`'s default
    /// when `nil` (tests make it small to see losses counted).
    public var sightingBufferSize: Int?

    /// The interval and window when none is given: 100 ms, continuous listening.
    public static let defaultMilliseconds = 100.0

    public init(
        family: ScanFamilyChoice = .auto, interval: ScanInterval? = nil, window: ScanInterval? = nil,
        access: ControllerAccess, quietAfter: Duration = .seconds(10), receiver: String? = nil
    ) {
        self.family = family
        self.interval = interval
        self.window = window
        self.access = access
        self.quietAfter = quietAfter
        self.receiver = receiver
    }

    public var isExclusive: Bool { access.isExclusive }
}
