/// Everything a set of manifest files describes, resolved: one namespace of venues,
/// beacons and regions.
public struct Fleet: Sendable {
    /// Venues in file order (files in the order they were loaded).
    public var venues: [ResolvedVenue]
    public var regions: [ResolvedRegion]
    /// Every beacon of every venue, in file order.
    public var beacons: [ResolvedBeacon]
    /// The files (or source names) the fleet was read from, in load order.
    public var files: [String]

    public init(
        venues: [ResolvedVenue] = [], regions: [ResolvedRegion] = [], beacons: [ResolvedBeacon] = [],
        files: [String] = []
    ) {
        self.venues = venues
        self.regions = regions
        self.beacons = beacons
        self.files = files
    }
}
