import BeaconCore
/// A venue of the manifest with its beacons, every inherited value applied.
public struct ResolvedVenue: Hashable, Sendable {
    public var id: String
    public var name: String?
    public var fleetName: String
    /// The floor plan's size in metres, when the manifest gives one.
    public var plan: PlanSize?
    /// The venue's beacons in file order (those without errors).
    public var beacons: [ResolvedBeacon]
    /// Where the venue's mapping starts (its `- id:` line).
    public var location: SourceLocation

    public init(
        id: String, name: String? = nil, fleetName: String, plan: PlanSize? = nil,
        beacons: [ResolvedBeacon], location: SourceLocation
    ) {
        self.id = id
        self.name = name
        self.fleetName = fleetName
        self.plan = plan
        self.beacons = beacons
        self.location = location
    }
}
