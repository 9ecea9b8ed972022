#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `ManifestFileReplacement.write(_:to:)` for content made piece by piece (a report of a
/// hundred thousand beacons is written as it is rendered, never held whole): the pieces go
/// to a temporary file beside `path`, and `commit` flushes it and renames it over `path`
/// (the folder flushed), so a crash leaves the old file or the new one, never a part.
/// Until `commit`, nothing at `path` changes; a writer let go uncommitted removes its
/// temporary file. New files get the process's default permissions (0666 less the umask).
public final class StreamedFileReplacement {
    public let path: String
    private let temporary: String
    private let folder: String
    private var descriptor: Int32
    private var committed = false

    /// Creates the temporary file; fails (naming `path`) when its folder is not writable.
    public init(path: String) throws(ManifestFileError) {
        self.path = path
        let (folder, name) = ManifestFileReplacement.split(path)
        self.folder = folder
        ManifestFileReplacement.removeStaleTemporaries(in: folder)
        temporary = folder + (folder.hasSuffix("/") ? "" : "/") + ManifestFileReplacement.temporaryName(for: name)
        descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o666)
        guard descriptor >= 0 else {
            throw ManifestFileError(
                path: path, kind: .unwritable, reason: "cannot create a temporary file in \(folder): \(ManifestFiles.errorText())")
        }
    }

    deinit {
        if !committed { abandon() }
    }

    /// Appends `bytes` to the new content.
    public func append(_ bytes: UnsafeRawBufferPointer) throws(ManifestFileError) {
        guard descriptor >= 0, !committed else {
            throw ManifestFileError(path: path, kind: .unwritable, reason: "the file was already finished")
        }
        guard ManifestFileReplacement.writeAll(bytes, to: descriptor) else {
            let error = ManifestFileReplacement.failure(path, .unwritable)
            abandon()
            throw error
        }
    }

    /// Makes the content written so far the file at `path`.
    public func commit() throws(ManifestFileError) {
        guard descriptor >= 0, !committed else {
            throw ManifestFileError(path: path, kind: .unwritable, reason: "the file was already finished")
        }
        guard fsync(descriptor) == 0, rename(temporary, path) == 0 else {
            let error = ManifestFileReplacement.failure(path, .unwritable)
            abandon()
            throw error
        }
        committed = true
        close(descriptor)
        descriptor = -1
        ManifestFileReplacement.flushFolder(folder)
    }

    /// Removes the temporary file: `path` keeps what it held.
    public func abandon() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        unlink(temporary)
    }
}
