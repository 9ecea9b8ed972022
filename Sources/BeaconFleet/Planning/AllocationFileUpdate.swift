import FleetManifest

#if canImport(Glibc)
import Glibc
private let systemRead = Glibc.read
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let systemRead = Darwin.read
private let systemWrite = Darwin.write
#endif

/// Why an allocation was not written into its manifest. Nothing is written in any case.
public enum AllocationWriteError: Error, Hashable, Sendable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case invalidResult(file: String, diagnostics: [Diagnostic])
    case resolvedDifferently(file: String, differences: [String])
    case changedMeanwhile(path: String)
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return "cannot read \(path): \(reason)"
        case .invalidResult(let file, let diagnostics):
            let errors = diagnostics.filter { $0.severity == .error }.count
            return "\(file) would not validate after the edit (\(errors) error\(errors == 1 ? "" : "s") above); it was left unchanged"
        case .resolvedDifferently(let file, let differences):
            return "in \(file) the new beacons would not get the planned values (\(differences.joined(separator: "; "))); it was left unchanged: add the printed YAML by hand or adjust the options"
        case .changedMeanwhile(let path):
            return "\(path) changed on disk while the allocation was planned; it was left unchanged: run the command again"
        case .unwritable(let path, let reason):
            return "cannot write \(path): \(reason)"
        }
    }
}

/// Checks an edited manifest against the whole namespace and writes it in place.
public enum AllocationFileUpdate {
    /// Loads the namespace again with `newBytes` standing in for `file`, and checks that it
    /// has no errors and that every planned beacon resolves to its planned identity, venue
    /// and zone. Returns the warnings of the new namespace.
    public static func validate(
        _ plan: AllocationPlan, newBytes: [UInt8], file: String, namespaceFiles: [String],
        options: ValidationOptions = .init()
    ) throws(AllocationWriteError) -> [Diagnostic] {
        var sources: [(name: String, bytes: [UInt8])] = []
        for path in namespaceFiles {
            if path == file {
                sources.append((path, newBytes))
            } else {
                sources.append((path, try read(path)))
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

    /// Replaces `path` with `bytes` atomically: a hidden temporary file in the same folder,
    /// flushed to disk, given the original's permissions, then renamed over it. Refuses
    /// when the file no longer holds `original` (someone edited it meanwhile).
    public static func write(_ bytes: [UInt8], to path: String, replacing original: [UInt8]) throws(AllocationWriteError) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .unwritable(path: path, reason: errorText()) }
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = (folder.isEmpty ? "" : folder + "/") + ".\(name).beaconctl-\(getpid())-\(UInt32.random(in: .min ... .max)).tmp"

        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, info.st_mode & 0o7777)
        guard descriptor >= 0 else { throw .unwritable(path: path, reason: "cannot create a temporary file in \(folder): \(errorText())") }
        var succeeded = false
        defer {
            close(descriptor)
            if !succeeded { unlink(temporary) }
        }
        // fchmod because umask may have narrowed the mode given to open.
        guard writeAll(bytes, to: descriptor), fchmod(descriptor, info.st_mode & 0o7777) == 0, fsync(descriptor) == 0 else {
            throw .unwritable(path: path, reason: errorText())
        }
        guard try read(path) == original else { throw .changedMeanwhile(path: path) }
        guard rename(temporary, path) == 0 else { throw .unwritable(path: path, reason: errorText()) }
        succeeded = true
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var remaining = bytes[...]
        while !remaining.isEmpty {
            let written = remaining.withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            remaining = remaining.dropFirst(written)
        }
        return true
    }

    /// A whole file's bytes.
    public static func read(_ path: String) throws(AllocationWriteError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(path: path, reason: errorText()) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: path, reason: errorText())
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    private static func errorText() -> String {
        guard let text = strerror(errno) else { return "error \(errno)" }
        return String(cString: text)
    }
}
