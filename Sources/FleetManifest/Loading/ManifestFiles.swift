#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The only part of the loader that touches the file system: turning paths into a sorted
/// list of manifest files, and reading one file's bytes.
enum ManifestFiles {
    struct Expansion {
        var files: [String] = []
        /// Paths that cannot be read (each an `unreadable-input` error).
        var problems: [Unreadable] = []
        /// Linked folders the walk did not follow (each a `link-not-followed` warning).
        var skippedLinks: [(path: String, reason: String, hint: String)] = []
    }

    enum ReadResult {
        case contents([UInt8], FileIdentity)
        case tooLarge(Int)
        case failed(Unreadable)
    }

    /// A path that cannot be read, why, and what to do about it.
    struct Unreadable {
        var path: String
        var reason: String
        var hint = "check the path and its permissions"
    }

    /// A file's identity on its device, to notice the same file reached twice.
    struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
        init(_ info: stat) {
            device = UInt64(truncatingIfNeeded: info.st_dev)
            inode = UInt64(truncatingIfNeeded: info.st_ino)
        }
    }

    /// Files stay as given; a folder becomes its `*.yaml`/`*.yml` files, recursively and
    /// sorted, skipping hidden entries (`.git`, editor swap files). The same file reached
    /// twice (named and inside a folder, or through a link) is read once.
    ///
    /// Links inside a folder: a link to a file is read like the file; a link named
    /// `*.yaml`/`*.yml` that leads nowhere is a problem, not a file quietly missing from the
    /// namespace. A linked folder is walked only when it lies inside the folder being walked
    /// and does not enclose the link (`parent -> ..` would pull in everything around the
    /// fleet, or loop); others are reported and skipped.
    static func expand(_ paths: [String]) -> Expansion {
        var expansion = Expansion()
        var seenFiles = Set<FileIdentity>()
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0 else {
                expansion.problems.append(unreadable(path))
                continue
            }
            if isDirectory(info) {
                var walk = FolderWalk(root: path, rootIdentity: FileIdentity(info))
                walk.run()
                expansion.problems += walk.problems
                expansion.skippedLinks += walk.skippedLinks
                if walk.found.isEmpty {
                    if walk.problems.isEmpty {
                        expansion.problems.append(Unreadable(path: path, reason: "folder `\(path)` holds no .yaml or .yml file"))
                    }
                    continue
                }
                for file in walk.chosenFiles() where seenFiles.insert(file.identity).inserted {
                    expansion.files.append(file.path)
                }
            } else if seenFiles.insert(FileIdentity(info)).inserted {
                expansion.files.append(path)
            }
        }
        return expansion
    }

    /// One folder's walk. Directories are visited from a work list, not by recursion; each
    /// is visited once (by device and inode), so no arrangement of links can loop. Linked
    /// folders wait until every folder reachable without links has been walked, so that a
    /// file is named by its own path rather than through a link when it has both.
    private struct FolderWalk {
        struct Found {
            var path: String
            var identity: FileIdentity
            /// Reached through a link (to the file, or to a folder on the way).
            var throughLink: Bool
        }

        struct Folder {
            var path: String
            /// The folder's path with every link resolved, for the inside/enclosing checks.
            var realPath: String
            var throughLink: Bool
        }

        let root: String
        let rootIdentity: FileIdentity
        private(set) var found: [Found] = []
        private(set) var problems: [Unreadable] = []
        private(set) var skippedLinks: [(path: String, reason: String, hint: String)] = []
        private var visited = Set<FileIdentity>()

        init(root: String, rootIdentity: FileIdentity) {
            self.root = root
            self.rootIdentity = rootIdentity
        }

        mutating func run() {
            guard let rootReal = realPath(root) else {
                problems.append(Unreadable(path: root, reason: "cannot read `\(root)`: \(errorText())"))
                return
            }
            visited.insert(rootIdentity)
            var pending = [Folder(path: root, realPath: rootReal, throughLink: false)]
            var linked: [Folder] = []
            while true {
                if let folder = pending.popLast() {
                    list(folder, rootReal: rootReal, into: &pending, links: &linked)
                } else if !linked.isEmpty {
                    let folder = linked.removeFirst()
                    var info = stat()
                    guard stat(folder.path, &info) == 0, visited.insert(FileIdentity(info)).inserted else { continue }
                    pending.append(folder)
                } else {
                    return
                }
            }
        }

        /// One file per identity (the one not reached through a link, else the first by
        /// path), in path order.
        func chosenFiles() -> [Found] {
            var chosen: [FileIdentity: Found] = [:]
            for file in found {
                if let current = chosen[file.identity] {
                    let better = (file.throughLink ? 1 : 0, file.path) < (current.throughLink ? 1 : 0, current.path)
                    if better { chosen[file.identity] = file }
                } else {
                    chosen[file.identity] = file
                }
            }
            return chosen.values.sorted { $0.path < $1.path }
        }

        private mutating func list(_ folder: Folder, rootReal: String, into pending: inout [Folder], links: inout [Folder]) {
            guard let handle = opendir(folder.path) else {
                problems.append(Unreadable(path: folder.path, reason: "cannot read folder `\(folder.path)`: \(errorText())"))
                return
            }
            defer { closedir(handle) }
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                guard !name.hasPrefix(".") else { continue }
                let path = folder.path.hasSuffix("/") ? folder.path + name : folder.path + "/" + name
                let isManifestName = name.hasSuffix(".yaml") || name.hasSuffix(".yml")
                var own = stat()
                // Gone since it was listed: nothing to read, nothing to report.
                guard lstat(path, &own) == 0 else { continue }
                if own.st_mode & S_IFMT == S_IFLNK {
                    var info = stat()
                    guard stat(path, &info) == 0 else {
                        if isManifestName { problems.append(unreadable(path)) }
                        continue
                    }
                    if isDirectory(info) {
                        guard let target = realPath(path) else {
                            problems.append(Unreadable(path: path, reason: "cannot resolve the linked folder `\(path)`: \(errorText())"))
                            continue
                        }
                        if let skipped = Self.refusal(link: path, target: target, in: folder.realPath, rootReal: rootReal) {
                            skippedLinks.append((path, skipped.reason, skipped.hint))
                        } else {
                            links.append(Folder(path: path, realPath: target, throughLink: true))
                        }
                    } else if isRegularFile(info), isManifestName {
                        found.append(Found(path: path, identity: FileIdentity(info), throughLink: true))
                    }
                } else if isDirectory(own) {
                    // Bind mounts aside, a folder is reached once; the set makes sure.
                    guard visited.insert(FileIdentity(own)).inserted else { continue }
                    let real = folder.realPath.hasSuffix("/") ? folder.realPath + name : folder.realPath + "/" + name
                    pending.append(Folder(path: path, realPath: real, throughLink: folder.throughLink))
                } else if isRegularFile(own), isManifestName {
                    found.append(Found(path: path, identity: FileIdentity(own), throughLink: folder.throughLink))
                }
            }
        }

        /// Why the linked folder `link` (resolving to `target`), found in the folder whose
        /// real path is `container`, is not walked; `nil` when it is.
        static func refusal(link: String, target: String, in container: String, rootReal: String) -> (reason: String, hint: String)? {
            if isSameOrInside(container, target) {
                return (
                    "`\(link)` links to `\(target)`, a folder that contains the link itself; it was not followed (it would walk the folders around the fleet, or loop)",
                    "remove the link: a fleet folder is one namespace, and links that lead back up are never followed")
            }
            if !isSameOrInside(target, rootReal) {
                return (
                    "`\(link)` links to `\(target)`, outside the folder `\(rootReal)` being loaded; it was not followed",
                    "to load those manifests with this folder, name `\(target)` on the command line as well, or move them inside")
            }
            return nil
        }

        /// `path` is `folder` or lies inside it (both real paths).
        static func isSameOrInside(_ path: String, _ folder: String) -> Bool {
            if path == folder || folder == "/" { return true }
            return path.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
        }
    }

    /// Why `path` cannot be opened (`errno` of the failed call), in words that say what it
    /// is: a link that leads nowhere is named as such, with where it points.
    static func unreadable(_ path: String) -> Unreadable {
        let code = errno
        let reason = errorText()
        var own = stat()
        guard lstat(path, &own) == 0, own.st_mode & S_IFMT == S_IFLNK else {
            return Unreadable(path: path, reason: "cannot read `\(path)`: \(reason)")
        }
        let target = linkTarget(path)
        let shown = target.map { " to `\($0)`" } ?? ""
        switch code {
        case ENOENT:
            return Unreadable(
                path: path, reason: "`\(path)` is a symbolic link\(shown), which does not exist (a dangling link)",
                hint: "point the link at an existing manifest (`ln -sfn TARGET \(path)`) or remove it")
        case ELOOP:
            return Unreadable(
                path: path, reason: "`\(path)` is a symbolic link\(shown) that leads back to itself (a loop of links)",
                hint: "point the link at an existing manifest or remove it")
        default:
            return Unreadable(path: path, reason: "cannot read `\(path)`, a symbolic link\(shown): \(reason)")
        }
    }

    private static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `path` with every link, `.` and `..` resolved; `nil` when that fails (errno says why).
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Reads a whole file, refusing to read more than `maxBytes`.
    static func read(_ path: String, maxBytes: Int) -> ReadResult {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failed(unreadable(path)) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .failed(Unreadable(path: path, reason: "cannot read `\(path)`: \(errorText())")) }
        if isDirectory(info) { return .failed(Unreadable(path: path, reason: "`\(path)` is a folder, not a file")) }
        let statedSize = Int(info.st_size)
        if statedSize > maxBytes { return .tooLarge(statedSize) }
        switch readAll(descriptor, sizeHint: statedSize, maxBytes: maxBytes) {
        case .success(let bytes): return .contents(bytes, FileIdentity(info))
        case .failure(.tooLarge(let count)): return .tooLarge(count)
        case .failure(.system(let reason)): return .failed(Unreadable(path: path, reason: "cannot read `\(path)`: \(reason)"))
        }
    }

    enum ReadFailure: Error {
        case tooLarge(Int)
        case system(String)
    }

    /// Everything left to read from `descriptor`, stopping past `maxBytes`. Pipes and
    /// special files report size 0: chunks are read until the end either way.
    static func readAll(_ descriptor: Int32, sizeHint: Int, maxBytes: Int) -> Result<[UInt8], ReadFailure> {
        var bytes: [UInt8] = []
        if sizeHint > 0 && sizeHint <= maxBytes {
            // The usual case, a file of known size: read straight into an array of that size
            // plus one byte, which is only filled if the file grew since `fstat` (then the
            // chunks below take over). No copy of the whole file through a chunk.
            var failure: ReadFailure?
            bytes = [UInt8](unsafeUninitializedCapacity: sizeHint + 1) { buffer, initialized in
                while initialized < buffer.count {
                    let count = readDescriptor(
                        descriptor,
                        into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[initialized...])))
                    if count < 0 {
                        if errno == EINTR { continue }
                        failure = .system(errorText())
                        return
                    }
                    if count == 0 { return }
                    initialized += count
                }
            }
            if let failure { return .failure(failure) }
            if bytes.count <= sizeHint { return .success(bytes) }
            if bytes.count > maxBytes { return .failure(.tooLarge(bytes.count)) }
        } else {
            bytes.reserveCapacity(sizeHint > 0 ? maxBytes + 1 : 64 << 10)
        }
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { readDescriptor(descriptor, into: $0) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(.system(errorText()))
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > maxBytes { return .failure(.tooLarge(bytes.count)) }
        }
        return .success(bytes)
    }

    static func isDirectory(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFDIR }
    static func isRegularFile(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFREG }

    static func errorText() -> String {
        guard let text = strerror(errno) else { return "error \(errno)" }
        return String(cString: text)
    }
}

/// `read(2)`, named apart from `ManifestFiles.read`.
private func readDescriptor(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    read(descriptor, buffer.baseAddress, buffer.count)
}
