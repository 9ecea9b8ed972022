import BeaconCore
import FleetManifest

/// Why `fleet plan` allocated or wrote nothing; nothing is written in any case.
public enum FleetAllocatingError: Error, Sendable, CustomStringConvertible {
    /// A manifest could not be read, or the edited one not written.
    case file(AllocationWriteError)
    /// The request cannot be met in the namespace.
    case planning(AllocationError)
    /// The allocation cannot be written into the `--append` file as text.
    case appending(AllocationAppendError)

    public var description: String {
        switch self {
        case .file(let error): error.description
        case .planning(let error): error.description
        case .appending(let error): error.description
        }
    }
}

/// The use case of `fleet plan`: identities allocated in a namespace of manifests, and with an
/// `--append` file, written into it in place once the whole namespace still validates with it.
public struct FleetAllocating: Sendable {
    /// The namespace as loaded, with its files' bytes (`keepingSnapshots`): the plan is made
    /// from them, and the write-back refuses a file changed since.
    public let namespace: ManifestLoadResult
    /// The manifest the allocation is written into (`--append`), when there is one.
    public let appendFile: String?

    public init(namespace: ManifestLoadResult, appendFile: String?) {
        self.namespace = namespace
        self.appendFile = appendFile
    }

    /// The namespace's venue `id`, when it is not a new one.
    public func existingVenue(_ id: String) -> ResolvedVenue? {
        namespace.fleet.venues.first { $0.id == id }
    }

    /// Plans `request` in the namespace. A request without a fleet gets the `--append` file's
    /// (as loaded, else as its text declares: a file without venues or regions yet). What the
    /// manifest text declares and the resolved model does not keep (the venue's `major:` and
    /// `uuid:`, the fleet's `uuid:`, which new beacons inherit) is read from the file the venue
    /// is in, else the `--append` file, else a file of the fleet.
    public func plan(_ request: AllocationRequest) throws(FleetAllocatingError) -> AllocationPlan {
        var request = request
        let fleet = namespace.fleet
        let existing = existingVenue(request.venueID)
        var appendDeclared: AllocationAppend.Declarations?
        if let appendFile { appendDeclared = AllocationAppend.declarations(of: nil, in: try contents(appendFile).bytes) }
        if request.fleetName == nil {
            request.fleetName = appendFileFleet() ?? appendDeclared?.fleetName
        }
        if let file = existing?.location.file ?? appendFile ?? fleetFile(request.fleetName) {
            let declared = AllocationAppend.declarations(of: existing, in: try contents(file).bytes)
            request.declaredVenueMajor = declared.venueMajor
            request.declaredVenueUUID = declared.venueUUID
            request.declaredFleetUUID = declared.fleetUUID
        }
        do {
            return try AllocationPlanner.plan(request, in: fleet)
        } catch {
            throw .planning(error)
        }
    }

    /// Writes `allocation` into `file` in place (comments and layout kept), after checking that
    /// the namespace validates with it and that each new beacon resolves to its planned values.
    /// `checked` is told the namespace's warnings before the file is written. Returns the
    /// 1-based line where the new text starts in the file.
    public func append(
        _ allocation: AllocationPlan, into file: String, checked: ([Diagnostic]) -> Void = { _ in }
    ) throws(FleetAllocatingError) -> Int {
        // What the plan was made from, not the file as it is now: the write-back refuses a
        // file changed since.
        let original = try contents(file)
        let fleet = namespace.fleet
        let insertion: ManifestInsertion
        do {
            insertion = try AllocationAppend.insertion(for: allocation, into: original.bytes, file: file, fleet: fleet)
        } catch {
            throw .appending(error)
        }
        let edited = insertion.applied(to: original.bytes)
        do {
            let diagnostics = try AllocationFileUpdate.validate(
                allocation, newBytes: edited, file: file, namespaceFiles: fleet.files, snapshots: namespace.snapshots)
            checked(diagnostics.filter { $0.severity == .warning })
            try AllocationFileUpdate.write(edited, replacing: original)
            return insertion.line
        } catch {
            throw .file(error)
        }
    }

    /// A manifest as the namespace load read it (read now only for a file outside it).
    func contents(_ path: String) throws(FleetAllocatingError) -> ManifestFileSnapshot {
        if let snapshot = namespace.snapshots[path] { return snapshot }
        do {
            return try AllocationFileUpdate.read(path)
        } catch {
            throw .file(error)
        }
    }

    /// A manifest file of the fleet, to read its top-level UUID from.
    private func fleetFile(_ name: String?) -> String? {
        guard let name else { return nil }
        let fleet = namespace.fleet
        return fleet.venues.first { $0.fleetName == name }?.location.file
            ?? fleet.regions.first { $0.fleetName == name }?.location.file
    }

    /// The fleet of the `--append` file, for a request that names none.
    private func appendFileFleet() -> String? {
        guard let appendFile else { return nil }
        let fleet = namespace.fleet
        return fleet.venues.first { $0.location.file == appendFile }?.fleetName
            ?? fleet.regions.first { $0.location.file == appendFile }?.fleetName
    }
}
