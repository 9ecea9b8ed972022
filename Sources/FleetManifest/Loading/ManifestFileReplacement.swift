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

/// What a manifest held when it was read, and which file that was (device and inode,
/// links followed). An edit is computed from `bytes`; writing it back checks that the file
/// on disk is still this one, holding these bytes.
public struct ManifestFileSnapshot: Sendable, Hashable {
    /// The path as it was named (a link stays a link).
    public let path: String
    public let bytes: [UInt8]
    let identity: ManifestFiles.FileIdentity

    init(path: String, bytes: [UInt8], identity: ManifestFiles.FileIdentity) {
        self.path = path
        self.bytes = bytes
        self.identity = identity
    }
}

/// Why a manifest could not be read or replaced. Nothing was written in any case.
public struct ManifestFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        case unreadable
        /// The file on disk is not what the edit was computed from.
        case changedMeanwhile
        /// The file has other names (hard links), which a replacement would leave behind.
        case hardLinked(links: Int)
        /// The new version could not be given the file's owner and group.
        case ownerNotKept(user: UInt32, group: UInt32)
        case unwritable
    }

    public var path: String
    public var kind: Kind
    /// For `.unreadable`, the whole message (it names the file); for `.changedMeanwhile`,
    /// what changed; otherwise the system's word for the failure (strerror).
    public var reason: String

    /// The whole story: what happened to which file, that it was left unchanged, and what
    /// to do next.
    public var description: String {
        switch kind {
        case .unreadable:
            return reason
        case .changedMeanwhile:
            return "\(path) changed on disk since it was read (\(reason)); it was left unchanged: run the command again"
        case .hardLinked(let links):
            return "\(path) has \(links) hard links (names of the same file); replacing it would leave the other \(links - 1) with the old text, so it was left unchanged: make the other names symbolic links to it (ln -sf) or remove them, then run the command again"
        case .ownerNotKept(let user, let group):
            return "cannot give the new version of \(path) its owner (user \(user), group \(group)): \(reason); it was left unchanged: run the command as that user or as root"
        case .unwritable:
            return "cannot write \(path): \(reason); it was left unchanged: check that it and its folder are writable"
        }
    }
}

/// Reading a manifest whole and writing an edited version back: what `fleet plan --append`
/// and `calibrate --write` share.
///
/// The write-back replaces the file atomically and keeps its identity:
/// - A crash or power cut at any moment leaves the old file or the new one, never a mix:
///   the new bytes go to a temporary file in the same folder (rename is atomic only within
///   one file system), which is flushed, then renamed over the file; the folder is flushed
///   so that the rename itself is on disk.
/// - A symbolic link is written through: its target is replaced and the link stays.
/// - Owner, group and permission bits are copied onto the temporary file before the
///   rename; when the owner cannot be kept (only root may give a file away) nothing is
///   written. ACLs and extended attributes are not copied.
/// - A file with several hard links is refused: a rename gives the one path a new file and
///   leaves the other names on the old text, and rewriting in place instead is not atomic
///   (a crash would leave every name torn). The user decides how to link it instead.
/// - The file must still be the one read (device and inode) and hold the bytes read
///   (`ManifestFileSnapshot`): compared just before the rename, so an edit made meanwhile
///   (in an editor, by another beaconctl) is never overwritten with a stale computation.
/// - Temporary files are named `.NAME.beaconctl-PID-N.tmp` beside the file. SIGKILL can
///   leave one behind; every write-back first removes those of processes that no longer
///   exist. (O_TMPFILE + linkat would leave nothing on SIGKILL, but linkat cannot replace
///   an existing name, so a named step before the rename remains anyway, and a fallback
///   would be needed on file systems without O_TMPFILE: one named path does both.)
public enum ManifestFileReplacement {
    /// A whole file's bytes, within the loader's file-size limit.
    public static func read(_ path: String, maxBytes: Int = ValidationOptions().maxFileBytes) throws(ManifestFileError) -> ManifestFileSnapshot {
        switch ManifestFiles.read(path, maxBytes: maxBytes) {
        case .contents(let bytes, let identity):
            return ManifestFileSnapshot(path: path, bytes: bytes, identity: identity)
        case .tooLarge(let size):
            throw ManifestFileError(path: path, kind: .unreadable, reason: "cannot read `\(path)`: it is \(size) bytes, over the \(maxBytes)-byte limit")
        case .failed(let problem):
            throw ManifestFileError(path: path, kind: .unreadable, reason: problem.reason)
        }
    }

    /// Replaces the file `original` was read from with `bytes`, as described above.
    public static func replace(_ original: ManifestFileSnapshot, with bytes: [UInt8]) throws(ManifestFileError) {
        let path = original.path
        guard let target = ManifestFiles.realPath(path) else {
            if errno == ENOENT { throw ManifestFileError(path: path, kind: .changedMeanwhile, reason: "it no longer exists") }
            throw failure(path, .unwritable)
        }
        let (folder, name) = split(target)
        removeStaleTemporaries(in: folder)
        let info = try currentFile(target, path: path, matching: original, comparingBytes: false)

        try writeThroughTemporary(bytes, folder: folder, name: name, target: target, path: path, mode: 0o600) {
            descriptor throws(ManifestFileError) in
            try keepOwnerAndMode(of: info, on: descriptor, path: path)
        } lastCheck: { () throws(ManifestFileError) in
            // The last look, as close to the rename as it can be.
            _ = try currentFile(target, path: path, matching: original, comparingBytes: true)
        }
    }

    /// The steps every atomic write shares: `bytes` into a new temporary file in `folder`
    /// (created with `mode`, then `prepare`d), flushed; `lastCheck`; renamed over `target`;
    /// the folder flushed. The temporary file is removed on every failure.
    private static func writeThroughTemporary(
        _ bytes: [UInt8], folder: String, name: String, target: String, path: String, mode: mode_t,
        prepare: (Int32) throws(ManifestFileError) -> Void, lastCheck: () throws(ManifestFileError) -> Void
    ) throws(ManifestFileError) {
        let temporary = folder + (folder.hasSuffix("/") ? "" : "/") + temporaryName(for: name)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard descriptor >= 0 else {
            throw ManifestFileError(path: path, kind: .unwritable, reason: "cannot create a temporary file in \(folder): \(errorText())")
        }
        var renamed = false
        defer {
            close(descriptor)
            if !renamed { unlink(temporary) }
        }
        guard writeAll(bytes, to: descriptor) else { throw failure(path, .unwritable) }
        try prepare(descriptor)
        guard fsync(descriptor) == 0 else { throw failure(path, .unwritable) }
        try lastCheck()
        guard rename(temporary, target) == 0 else { throw failure(path, .unwritable) }
        renamed = true
        flushFolder(folder)
    }

    /// Makes a rename in `folder` durable. Some file systems refuse fsync on a folder
    /// (EINVAL); the rename has happened then and is as durable as that file system makes it.
    static func flushFolder(_ folder: String) {
        let folderDescriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folderDescriptor >= 0 else { return }
        defer { close(folderDescriptor) }
        _ = fsync(folderDescriptor)
    }

    /// Writes `bytes` as the file at `path`, new or replacing whatever file is there (the
    /// outputs of `fleet export --output` and `fleet import --output-dir`): atomically, as
    /// `replace` does (a temporary file beside it, flushed, renamed, the folder flushed), so a
    /// crash leaves the old file or the new one. The new file's permissions are the
    /// process's default (0666 less the umask), as for any file a command creates.
    public static func write(_ bytes: [UInt8], to path: String) throws(ManifestFileError) {
        let file = try StreamedFileReplacement(path: path)
        var failure: ManifestFileError?
        bytes.withUnsafeBytes { raw in
            do throws(ManifestFileError) { try file.append(raw) } catch { failure = error }
        }
        if let failure { throw failure }
        try file.commit()
    }

    /// The file at `target` (links resolved) as it is now, checked against `original`: the
    /// same file, one name, and with `comparingBytes` the same content.
    private static func currentFile(
        _ target: String, path: String, matching original: ManifestFileSnapshot, comparingBytes: Bool
    ) throws(ManifestFileError) -> stat {
        let descriptor = open(target, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            switch errno {
            case ENOENT: throw ManifestFileError(path: path, kind: .changedMeanwhile, reason: "it no longer exists")
            case ELOOP: throw ManifestFileError(path: path, kind: .changedMeanwhile, reason: "a symbolic link has taken its place")
            default: throw failure(path, .unwritable)
            }
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure(path, .unwritable) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw ManifestFileError(path: path, kind: .unwritable, reason: "it is not a regular file")
        }
        guard ManifestFiles.FileIdentity(info) == original.identity else {
            throw ManifestFileError(path: path, kind: .changedMeanwhile, reason: "another file has taken its place")
        }
        if info.st_nlink > 1 {
            throw ManifestFileError(path: path, kind: .hardLinked(links: Int(info.st_nlink)), reason: "")
        }
        guard comparingBytes else { return info }
        let changed = ManifestFileError(path: path, kind: .changedMeanwhile, reason: "its content differs from what was read")
        guard Int(info.st_size) == original.bytes.count else { throw changed }
        switch ManifestFiles.readAll(descriptor, sizeHint: original.bytes.count, maxBytes: original.bytes.count) {
        case .success(let current):
            guard current == original.bytes else { throw changed }
            return info
        case .failure(.tooLarge):
            throw changed
        case .failure(.system(let reason)):
            throw ManifestFileError(path: path, kind: .unwritable, reason: "cannot read it again to check it: \(reason)")
        }
    }

    /// Gives the temporary file the original's owner, group and permission bits. fchown
    /// comes first: it may clear set-user-ID bits, which fchmod then restores.
    private static func keepOwnerAndMode(of original: stat, on descriptor: Int32, path: String) throws(ManifestFileError) {
        var own = stat()
        guard fstat(descriptor, &own) == 0 else { throw failure(path, .unwritable) }
        if own.st_uid != original.st_uid || own.st_gid != original.st_gid {
            guard fchown(descriptor, original.st_uid, original.st_gid) == 0 else {
                throw ManifestFileError(
                    path: path, kind: .ownerNotKept(user: UInt32(original.st_uid), group: UInt32(original.st_gid)),
                    reason: errorText())
            }
        }
        guard fchmod(descriptor, original.st_mode & 0o7777) == 0 else { throw failure(path, .unwritable) }
    }

    // MARK: Temporary files

    private static let temporaryMarker = ".beaconctl"

    /// `.NAME.beaconctl-PID-N.tmp`: hidden (the loader skips it), recognisable, and naming
    /// the process that owns it. Long names are shortened to stay within NAME_MAX.
    static func temporaryName(for name: String, pid: Int32 = getpid()) -> String {
        var shortened = ""
        var length = 0
        for scalar in name.unicodeScalars {
            length += String(scalar).utf8.count
            guard length <= 200 else { break }
            shortened.unicodeScalars.append(scalar)
        }
        return ".\(shortened)\(temporaryMarker)-\(pid)-\(UInt32.random(in: .min ... .max)).tmp"
    }

    /// The process a temporary file of `temporaryName(for:)` belongs to; `nil` for any
    /// other name.
    static func owner(ofTemporary name: String) -> Int32? {
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return nil }
        let parts = name.dropLast(4).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return nil }
        let random = parts[parts.count - 1]
        let pid = parts[parts.count - 2]
        let isNumber = { (text: Substring) in !text.isEmpty && text.utf8.allSatisfy { (0x30...0x39).contains($0) } }
        guard isNumber(random), isNumber(pid), parts[parts.count - 3].hasSuffix(temporaryMarker),
            let owner = Int32(pid), owner > 0
        else { return nil }
        return owner
    }

    /// Removes temporary files of write-backs whose process no longer exists (killed before
    /// its rename). Best effort: a file that cannot be removed stays. A live process's file
    /// is never touched; in a shared folder seen from another PID namespace a live writer
    /// may look dead, and then its rename fails cleanly rather than writing anything wrong.
    static func removeStaleTemporaries(in folder: String) {
        guard let handle = opendir(folder) else { return }
        defer { closedir(handle) }
        let me = getpid()
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let owner = owner(ofTemporary: name), owner != me else { continue }
            // kill(pid, 0) sends nothing: ESRCH means no such process; EPERM means one
            // exists that belongs to someone else.
            guard kill(owner, 0) != 0, errno == ESRCH else { continue }
            let path = folder + (folder.hasSuffix("/") ? "" : "/") + name
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            unlink(path)
        }
    }

    // MARK: Helpers

    /// The folder and the name of a resolved path.
    static func split(_ target: String) -> (folder: String, name: String) {
        guard let slash = target.lastIndex(of: "/") else { return (".", target) }
        let folder = String(target[..<slash])
        return (folder.isEmpty ? "/" : folder, String(target[target.index(after: slash)...]))
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        bytes.withUnsafeBytes { writeAll($0, to: descriptor) }
    }

    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    static func failure(_ path: String, _ kind: ManifestFileError.Kind) -> ManifestFileError {
        ManifestFileError(path: path, kind: kind, reason: errorText())
    }

    private static func errorText() -> String {
        ManifestFiles.errorText()
    }
}
