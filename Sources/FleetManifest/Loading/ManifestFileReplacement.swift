#if canImport(Glibc)
import Glibc
private let systemWrite = Glibc.write
#elseif canImport(Musl)
import Musl
private let systemWrite = Musl.write
#elseif canImport(Darwin)
import Darwin
private let systemWrite = Darwin.write
#endif

/// Why a manifest could not be read or replaced in place. `reason` is the system's word
/// for it (strerror); callers add what the user should do in their own context.
public struct ManifestFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        case unreadable
        /// The file no longer holds what the edit was computed from.
        case changedMeanwhile
        case unwritable
    }

    public var path: String
    public var kind: Kind
    /// For `.unreadable`, the whole message (it names the file); otherwise the system's word.
    public var reason: String

    public var description: String {
        switch kind {
        case .unreadable: return reason
        case .changedMeanwhile: return "\(path) changed on disk meanwhile"
        case .unwritable: return "cannot write \(path): \(reason)"
        }
    }
}

/// Reading a manifest whole and replacing it in place: what `fleet plan --append` and
/// `calibrate --write` share.
public enum ManifestFileReplacement {
    /// A whole file's bytes, within the loader's file-size limit.
    public static func read(_ path: String, maxBytes: Int = ValidationOptions().maxFileBytes) throws(ManifestFileError) -> [UInt8] {
        switch ManifestFiles.read(path, maxBytes: maxBytes) {
        case .contents(let bytes): return bytes
        case .tooLarge(let size): throw ManifestFileError(path: path, kind: .unreadable, reason: "cannot read `\(path)`: it is \(size) bytes, over the \(maxBytes)-byte limit")
        case .failed(let message): throw ManifestFileError(path: path, kind: .unreadable, reason: message)
        }
    }

    /// Replaces the file at `path` with `bytes` so that a crash or a power cut at any
    /// moment leaves either the old file or the new one: the bytes go to a temporary file
    /// in the same folder (rename is atomic only within one file system), which is flushed
    /// (fsync) and given the original's permission bits, then renamed over the original,
    /// and the folder is flushed so that the rename itself is on disk. Refuses when the
    /// file no longer holds `original` (edited meanwhile).
    public static func replace(_ path: String, with bytes: [UInt8], expecting original: [UInt8]) throws(ManifestFileError) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw failure(path, .unwritable) }
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let folderPath = folder.isEmpty ? "/" : folder
        let temporary = folderPath + (folderPath.hasSuffix("/") ? "" : "/")
            + ".\(name).beaconctl-\(getpid())-\(UInt32.random(in: .min ... .max)).tmp"
        let permissions = info.st_mode & 0o7777

        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard descriptor >= 0 else {
            throw ManifestFileError(path: path, kind: .unwritable, reason: "cannot create a temporary file in \(folderPath): \(errorText())")
        }
        var renamed = false
        defer {
            close(descriptor)
            if !renamed { unlink(temporary) }
        }
        // fchmod because the umask may have narrowed the mode given to open.
        guard writeAll(bytes, to: descriptor), fchmod(descriptor, permissions) == 0, fsync(descriptor) == 0 else {
            throw failure(path, .unwritable)
        }
        guard try read(path) == original else {
            throw ManifestFileError(path: path, kind: .changedMeanwhile, reason: "")
        }
        guard rename(temporary, path) == 0 else { throw failure(path, .unwritable) }
        renamed = true
        let folderDescriptor = open(folderPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folderDescriptor >= 0 else { return }
        defer { close(folderDescriptor) }
        // Some file systems refuse fsync on a folder (EINVAL); the rename has happened then
        // and is as durable as that file system makes it.
        _ = fsync(folderDescriptor)
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

    private static func failure(_ path: String, _ kind: ManifestFileError.Kind) -> ManifestFileError {
        ManifestFileError(path: path, kind: kind, reason: errorText())
    }

    private static func errorText() -> String {
        guard let text = strerror(errno) else { return "error \(errno)" }
        return String(cString: text)
    }
}
