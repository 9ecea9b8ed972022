import FleetManifest
import Foundation

/// Where `fleet import` puts the manifests it made.
public enum FleetImportDestination: Hashable, Sendable {
    /// One manifest, to standard output.
    case standardOutput
    /// One manifest, to this file.
    case file(String)
    /// One `FLEET.yaml` per fleet, into this folder (made when missing).
    case directory(String)
}

/// Why `fleet import` wrote nothing, or not everything.
public enum FleetImportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file exists and overwriting was not asked for.
    case exists(String)
    /// Several fleets, and a destination that holds one.
    case severalFleets([String])
    case write(ManifestFileError)

    public var description: String {
        switch self {
        case .exists(let path):
            return "\(path) exists; pass --force to overwrite it or write elsewhere."
        case .severalFleets(let names):
            return "the CSV holds \(names.count) fleets (\(names.joined(separator: ", "))) and a manifest holds one; pass --output-dir DIR to write one file per fleet."
        case .write(let error):
            return error.description
        }
    }
}

/// The writing half of `fleet import`: the manifests made from a CSV, to a file, a folder
/// (one per fleet) or standard output. Nothing is overwritten without `force`, and a folder's
/// files are all checked before the first is written.
public enum FleetImporting {
    /// Writes `manifests` to `destination`; `wrote` is told each file once it is written.
    /// Returns the one manifest's text for standard output, `nil` when everything went to files.
    /// A folder that cannot be made fails with the file system's error.
    public static func write(
        _ manifests: [ImportedManifest], to destination: FleetImportDestination, force: Bool,
        wrote: (String) -> Void = { _ in }
    ) throws -> String? {
        if case .directory(let folder) = destination {
            let targets = manifests.map { (path: folder + "/" + $0.fleet + ".yaml", yaml: $0.yaml) }
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for target in targets { try refuseOverwrite(target.path, force: force) }
            for target in targets {
                try replace(target.path, with: target.yaml)
                wrote(target.path)
            }
            return nil
        }
        guard manifests.count == 1, let manifest = manifests.first else {
            throw FleetImportError.severalFleets(manifests.map(\.fleet))
        }
        guard case .file(let path) = destination else { return manifest.yaml }
        try refuseOverwrite(path, force: force)
        try replace(path, with: manifest.yaml)
        return nil
    }

    private static func refuseOverwrite(_ path: String, force: Bool) throws(FleetImportError) {
        if !force, FileManager.default.fileExists(atPath: path) { throw .exists(path) }
    }

    /// Atomically, as every file beaconctl writes (`ManifestFileReplacement`).
    private static func replace(_ path: String, with text: String) throws(FleetImportError) {
        do {
            try ManifestFileReplacement.write(Array(text.utf8), to: path)
        } catch {
            throw .write(error)
        }
    }
}
