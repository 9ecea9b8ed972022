/// Limits and budgets applied while loading manifests.
public struct ValidationOptions: Sendable {
    /// Advertising sets one host's controller can run at once; more beacons on one host is
    /// a warning. A manifest's own `max_beacons_per_host` takes precedence.
    public var maxBeaconsPerHost: Int = 16
    /// Files larger than this are refused unread: a manifest of a million beacons is about
    /// 200 MiB, so the default leaves room while keeping a stray disk image out.
    public var maxFileBytes: Int = 512 << 20
    /// Deepest nesting of mappings and sequences accepted. The schema needs 6 levels; the
    /// limit stops pathological inputs early (libyaml's scanner slows down quadratically
    /// with the depth of flow collections).
    public var maxDepth: Int = 64
    /// Diagnostics kept before the rest are only counted, so that a hostile file cannot
    /// grow the report without bound. `Int.max` keeps everything.
    public var maxDiagnostics: Int = 10_000
    /// Regions an app can monitor (`RegionBudget`): more `regions` is a warning that says
    /// which wildcard regions would cover them.
    public var regionBudget: RegionBudget = .iOS

    public init(
        maxBeaconsPerHost: Int = 16, maxFileBytes: Int = 512 << 20, maxDepth: Int = 64,
        maxDiagnostics: Int = 10_000, regionBudget: RegionBudget = .iOS
    ) {
        self.maxBeaconsPerHost = maxBeaconsPerHost
        self.maxFileBytes = maxFileBytes
        self.maxDepth = maxDepth
        self.maxDiagnostics = maxDiagnostics
        self.regionBudget = regionBudget
    }
}
