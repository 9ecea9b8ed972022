#if canImport(Glibc)
import Glibc
private let systemRead = Glibc.read
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let systemRead = Darwin.read
private let systemWrite = Darwin.write
#endif

extension ManifestValueEdit {
    /// Sets a beacon's measured power in its manifest file, in place: reads the file, edits
    /// the one value, loads the namespace again with the edited text standing in for the
    /// file and checks that it validates and that only this beacon's measured power
    /// changed, then replaces the file atomically. Nothing is written when any step fails.
    ///
    /// `namespace` is the paths the fleet was loaded from (files or folders), so that
    /// uniqueness is checked across the whole fleet as `fleet validate` would.
    public static func writeMeasuredPower(
        _ value: Int8, beaconID: String, namespace: [String], options: ValidationOptions = .init()
    ) throws(ManifestEditError) {
        let before = ManifestLoader.load(paths: namespace, options: options)
        guard before.errorCount == 0 else {
            throw ManifestEditError(file: namespace.joined(separator: ", "), "does not validate; fix it (`beaconctl fleet validate`) before writing to it")
        }
        guard let beacon = before.fleet.beacons.first(where: { $0.id == beaconID }) else {
            throw ManifestEditError(file: namespace.joined(separator: ", "), "has no beacon `\(beaconID)`")
        }
        let file = beacon.location.file
        let original = try readFile(file)
        let edited = try settingMeasuredPower(value, ofBeaconAt: beacon.location, in: original)

        let sources = before.fleet.files.map { path in
            (name: path, bytes: path == file ? edited : ((try? readFile(path)) ?? []))
        }
        let after = ManifestLoader.load(sources: sources, options: options)
        guard after.errorCount == 0 else {
            let first = after.diagnostics.first { $0.severity == .error }.map { ": \($0)" } ?? ""
            throw ManifestEditError(file: file, "would not validate after the edit\(first); it was left unchanged")
        }
        let expected = before.fleet.beacons.map { candidate in
            var changed = candidate
            if candidate.id == beaconID { changed.measuredPower = .dBm(value) }
            return BeaconValues(changed)
        }
        guard after.fleet.beacons.map(BeaconValues.init) == expected else {
            throw ManifestEditError(file: file, "the edit would change more than the measured power of `\(beaconID)`; it was left unchanged: set `measured_power: \(value)` by hand")
        }
        try replaceAtomically(file, with: edited, expecting: original)
    }

    /// Replaces the file at `path` with `bytes` so that a crash or a power cut at any
    /// moment leaves either the old file or the new one: the bytes go to a temporary file
    /// in the same folder (rename is atomic only within one file system), which is flushed
    /// (fsync) and given the original's permission bits, then renamed over the original,
    /// and the folder is flushed so that the rename itself is on disk. Refuses when the
    /// file no longer holds `original` (edited meanwhile).
    public static func replaceAtomically(_ path: String, with bytes: [UInt8], expecting original: [UInt8]) throws(ManifestEditError) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw ManifestEditError(file: path, "cannot read its attributes: \(errorText())") }
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let folderPath = folder.isEmpty ? "/" : folder
        let temporary = folderPath + (folderPath.hasSuffix("/") ? "" : "/")
            + ".\(name).beaconctl-\(getpid())-\(UInt32.random(in: .min ... .max)).tmp"
        let permissions = info.st_mode & 0o7777

        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard descriptor >= 0 else {
            throw ManifestEditError(file: path, "cannot create a temporary file in \(folderPath): \(errorText()); check that the folder is writable")
        }
        var renamed = false
        defer {
            close(descriptor)
            if !renamed { unlink(temporary) }
        }
        // fchmod because the umask may have narrowed the mode given to open.
        guard writeAll(bytes, to: descriptor), fchmod(descriptor, permissions) == 0, fsync(descriptor) == 0 else {
            throw ManifestEditError(file: path, "cannot write the new version: \(errorText()); the file was left unchanged")
        }
        guard try readFile(path) == original else {
            throw ManifestEditError(file: path, "changed on disk while calibrating; it was left unchanged: run the command again")
        }
        guard rename(temporary, path) == 0 else {
            throw ManifestEditError(file: path, "cannot replace it: \(errorText()); the file was left unchanged")
        }
        renamed = true
        let folderDescriptor = open(folderPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folderDescriptor >= 0 else { return }
        defer { close(folderDescriptor) }
        // Some file systems refuse fsync on a folder (EINVAL); the rename has happened then
        // and is as durable as that file system makes it.
        _ = fsync(folderDescriptor)
    }

    /// A whole file's bytes.
    static func readFile(_ path: String) throws(ManifestEditError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ManifestEditError(file: path, "cannot read it: \(errorText())") }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ManifestEditError(file: path, "cannot read it: \(errorText())")
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
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

    private static func errorText() -> String {
        guard let text = strerror(errno) else { return "error \(errno)" }
        return String(cString: text)
    }
}

/// What an edit must not change about a beacon: every resolved value except where its
/// mapping starts (an inserted line moves the beacons below it).
private struct BeaconValues: Equatable {
    var beacon: ResolvedBeacon

    init(_ beacon: ResolvedBeacon) {
        var withoutLocation = beacon
        withoutLocation.location = SourceLocation(file: beacon.location.file, line: 0, column: 0)
        self.beacon = withoutLocation
    }
}
