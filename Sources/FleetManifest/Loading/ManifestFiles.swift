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
        var problems: [(path: String, reason: String)] = []
    }

    enum ReadResult {
        case contents([UInt8])
        case tooLarge(Int)
        case failed(String)
    }

    /// Files stay as given; a folder becomes its `*.yaml`/`*.yml` files, recursively and
    /// sorted, skipping hidden entries (`.git`, editor swap files). The same file reached
    /// twice (named and inside a folder, or through a link) is read once.
    static func expand(_ paths: [String]) -> Expansion {
        var expansion = Expansion()
        var seenFiles = Set<FileIdentity>()
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0 else {
                expansion.problems.append((path, "cannot read `\(path)`: \(errorText())"))
                continue
            }
            if isDirectory(info) {
                var found: [(path: String, identity: FileIdentity)] = []
                var visited = Set<FileIdentity>()
                collect(in: path, identity: FileIdentity(info), into: &found, visited: &visited)
                if found.isEmpty {
                    expansion.problems.append((path, "folder `\(path)` holds no .yaml or .yml file"))
                    continue
                }
                for file in found.sorted(by: { $0.path < $1.path }) where seenFiles.insert(file.identity).inserted {
                    expansion.files.append(file.path)
                }
            } else if seenFiles.insert(FileIdentity(info)).inserted {
                expansion.files.append(path)
            }
        }
        return expansion
    }

    /// A file's identity on its device, to notice the same file reached twice.
    private struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
        init(_ info: stat) {
            device = UInt64(truncatingIfNeeded: info.st_dev)
            inode = UInt64(truncatingIfNeeded: info.st_ino)
        }
    }

    private static func collect(
        in directory: String, identity: FileIdentity, into found: inout [(path: String, identity: FileIdentity)],
        visited: inout Set<FileIdentity>
    ) {
        // A link back to a parent folder would otherwise recurse forever.
        guard visited.insert(identity).inserted, let handle = opendir(directory) else { return }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard !name.hasPrefix(".") else { continue }
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            if isDirectory(info) {
                collect(in: path, identity: FileIdentity(info), into: &found, visited: &visited)
            } else if isRegularFile(info), name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
                found.append((path, FileIdentity(info)))
            }
        }
    }

    /// Reads a whole file, refusing to read more than `maxBytes`.
    static func read(_ path: String, maxBytes: Int) -> ReadResult {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failed("cannot read `\(path)`: \(errorText())") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .failed("cannot read `\(path)`: \(errorText())") }
        if isDirectory(info) { return .failed("`\(path)` is a folder, not a file") }
        let statedSize = Int(info.st_size)
        if statedSize > maxBytes { return .tooLarge(statedSize) }

        // Pipes and special files report size 0: read in chunks until the end, still
        // stopping past the limit.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(statedSize > 0 ? statedSize + 1 : 64 << 10)
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { readDescriptor(descriptor, into: $0) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failed("cannot read `\(path)`: \(errorText())")
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > maxBytes { return .tooLarge(bytes.count) }
        }
        return .contents(bytes)
    }

    private static func isDirectory(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFDIR }
    private static func isRegularFile(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFREG }

    private static func errorText() -> String {
        guard let text = strerror(errno) else { return "error \(errno)" }
        return String(cString: text)
    }
}

/// `read(2)`, named apart from `ManifestFiles.read`.
private func readDescriptor(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    read(descriptor, buffer.baseAddress, buffer.count)
}
