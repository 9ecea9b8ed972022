/// What loading a set of manifests produced: the fleet and every problem found.
public struct ManifestLoadResult: Sendable {
    /// Everything that could be resolved; beacons (and venues) with errors are left out.
    public var fleet: Fleet
    /// Every problem, sorted by file, line and column.
    public var diagnostics: [Diagnostic]
    /// Paths that could not be read at all (missing, no permission, a folder without any
    /// `.yaml`/`.yml` file, a dangling link). Each also has an `unreadable-input` diagnostic.
    public var unreadableInputs: [String]
    /// Each file's bytes as read, by its name in `fleet.files`; only when the load was asked
    /// to keep them (`ManifestLoader.load(paths:options:keepingSnapshots:)`).
    public var snapshots: [String: ManifestFileSnapshot]

    public init(
        fleet: Fleet, diagnostics: [Diagnostic], unreadableInputs: [String] = [],
        snapshots: [String: ManifestFileSnapshot] = [:]
    ) {
        self.fleet = fleet
        self.diagnostics = diagnostics
        self.unreadableInputs = unreadableInputs
        self.snapshots = snapshots
    }

    public var errorCount: Int { diagnostics.count { $0.severity == .error } }
    public var warningCount: Int { diagnostics.count { $0.severity == .warning } }
}
