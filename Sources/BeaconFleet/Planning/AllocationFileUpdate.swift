import BeaconCore
import FleetManifest


/// Why an allocation was not written into its manifest. Nothing is written in any case.
public enum AllocationWriteError: Error, Hashable, Sendable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case invalidResult(file: String, diagnostics: [Diagnostic])
    case resolvedDifferently(file: String, differences: [String])
    case changedMeanwhile(path: String)
    /// The file's identity (its other hard links, its owner) could not be kept.
    case identityNotKept(ManifestFileError)
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(_, let reason):
            return reason
        case .invalidResult(let file, let diagnostics):
            let errors = diagnostics.filter { $0.severity == .error }.count
            return "\(file) would not validate after the edit (\(NumberText.count(errors, "error")) above); it was left unchanged"
        case .resolvedDifferently(let file, let differences):
            return "in \(file) the new beacons would not get the planned values (\(differences.joined(separator: "; "))); it was left unchanged: add the printed YAML by hand or adjust the options"
        case .changedMeanwhile(let path):
            return "\(path) changed on disk while the allocation was planned; it was left unchanged: run the command again"
        case .identityNotKept(let error):
            return error.description
        case .unwritable(let path, let reason):
            return "cannot write \(path): \(reason); it was left unchanged: check that it and its folder are writable"
        }
    }
}

/// Checks an edited manifest against the whole namespace and writes it in place.
public enum AllocationFileUpdate {
    /// Loads the namespace again with `newBytes` standing in for `file`, and checks that it
    /// has no errors and that every planned beacon resolves to its planned identity, venue
    /// and zone. Returns the warnings of the new namespace. The other files are taken from
    /// `snapshots` (what the plan was made from) where given, else read.
    public static func validate(
        _ plan: AllocationPlan, newBytes: [UInt8], file: String, namespaceFiles: [String],
        snapshots: [String: ManifestFileSnapshot] = [:], options: ValidationOptions = .init()
    ) throws(AllocationWriteError) -> [Diagnostic] {
        var sources: [(name: String, bytes: [UInt8])] = []
        for path in namespaceFiles {
            if path == file {
                sources.append((path, newBytes))
            } else {
                let bytes = if let snapshot = snapshots[path] { snapshot.bytes } else { try read(path).bytes }
                sources.append((path, bytes))
            }
        }
        if !namespaceFiles.contains(file) { sources.append((file, newBytes)) }
        let result = ManifestLoader.load(sources: sources, options: options)
        if result.errorCount > 0 { throw .invalidResult(file: file, diagnostics: result.diagnostics) }

        let resolved = Dictionary(result.fleet.beacons.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var differences: [String] = []
        for planned in plan.beacons {
            guard let beacon = resolved[planned.id] else {
                differences.append("`\(planned.id)` is missing")
                continue
            }
            if beacon.identity != planned.identity {
                differences.append("`\(planned.id)` would be \(beacon.identity), not \(planned.identity)")
            }
            if beacon.venueID != plan.venue.id || beacon.fleetName != plan.fleetName {
                differences.append("`\(planned.id)` would be in venue `\(beacon.venueID)` of fleet `\(beacon.fleetName)`")
            }
            if beacon.zone != planned.zone {
                differences.append("`\(planned.id)` would be in zone `\(beacon.zone ?? "")`")
            }
        }
        if !differences.isEmpty { throw .resolvedDifferently(file: file, differences: differences) }
        return result.diagnostics
    }

    /// Replaces the file `original` was read from with `bytes` atomically, keeping its
    /// identity (see `ManifestFileReplacement.replace`), refusing when it changed on disk
    /// since it was read.
    public static func write(_ bytes: [UInt8], replacing original: ManifestFileSnapshot) throws(AllocationWriteError) {
        do {
            try ManifestFileReplacement.replace(original, with: bytes)
        } catch {
            let path = original.path
            switch error.kind {
            case .changedMeanwhile: throw .changedMeanwhile(path: path)
            case .unreadable: throw .unreadable(path: path, reason: error.reason)
            case .hardLinked, .ownerNotKept: throw .identityNotKept(error)
            case .unwritable: throw .unwritable(path: path, reason: error.reason)
            }
        }
    }

    /// A whole file's bytes, and which file it was.
    public static func read(_ path: String) throws(AllocationWriteError) -> ManifestFileSnapshot {
        do {
            return try ManifestFileReplacement.read(path)
        } catch {
            throw .unreadable(path: path, reason: error.reason)
        }
    }
}
