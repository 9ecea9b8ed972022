import BeaconCore

/// A region to monitor, as CoreLocation's `CLBeaconRegion` would be configured.
public struct ResolvedRegion: Hashable, Sendable {
    /// Identifier, UUID (inherited from the fleet when not given), optional major and minor.
    public var region: BeaconRegion
    public var notifyOnEntry: Bool
    public var notifyOnExit: Bool
    /// Whether the current inside/outside state is reported as soon as monitoring starts.
    public var notifyStateOnStart: Bool
    public var fleetName: String
    public var location: SourceLocation

    public init(
        region: BeaconRegion, notifyOnEntry: Bool = true, notifyOnExit: Bool = true,
        notifyStateOnStart: Bool = false, fleetName: String, location: SourceLocation
    ) {
        self.region = region
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
        self.notifyStateOnStart = notifyStateOnStart
        self.fleetName = fleetName
        self.location = location
    }
}
