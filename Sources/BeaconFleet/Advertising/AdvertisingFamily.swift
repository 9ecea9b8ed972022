/// The two LE advertising command families (Core v5.4 Vol 4 Part E 3.1.1). A controller
/// accepts only one of them between two Resets, so beaconctl never mixes them.
public enum AdvertisingFamily: String, Hashable, Sendable, CustomStringConvertible {
    /// LE Set Advertising Parameters/Data/Enable: one advertisement per controller;
    /// several beacons take turns (rotation).
    case legacy
    /// Advertising sets (Bluetooth 5.0, LE feature bit 12): one set per beacon, all on the
    /// air at once.
    case extended

    public var description: String { rawValue }
}

/// Which family to use: `auto` picks extended when the controller has LE feature bit 12.
public enum AdvertisingFamilyChoice: String, Hashable, Sendable, CaseIterable {
    case auto, legacy, extended

    /// The family for a controller with or without extended advertising; `nil` when
    /// extended is forced on a controller without it.
    public func family(controllerSupportsExtended: Bool) -> AdvertisingFamily? {
        switch self {
        case .auto: return controllerSupportsExtended ? .extended : .legacy
        case .legacy: return .legacy
        case .extended: return controllerSupportsExtended ? .extended : nil
        }
    }
}
