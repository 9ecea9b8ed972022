#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HCI

extension BTSnoopReader {
    /// Reads the file at `path` (whole: for tests and small files; commands stream).
    public init(contentsOf path: String) throws(BTSnoopError) {
        try self.init(bytes: try BTSnoopFileIO.readAll(path))
    }
}

/// The few file operations btsnoop needs, kept apart so the format code stays free of I/O.
enum BTSnoopFileIO {
    /// Creates (or truncates) `path` for writing; returns the descriptor.
    static func create(_ path: String) throws(BTSnoopError) -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .fileSystem(path: path, operation: "create capture file", reason: lastErrorText())
        }
        return descriptor
    }

    /// Writes all of `bytes`, retrying short writes and interruptions.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(BTSnoopError) {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress.map { $0 + written }, bytes.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw .fileSystem(path: path, operation: "write to capture file", reason: lastErrorText())
            }
            written += result
        }
    }

    static func close(_ descriptor: Int32) {
        _ = systemClose(descriptor)
    }

    /// The whole content of `path`.
    static func readAll(_ path: String) throws(BTSnoopError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .fileSystem(path: path, operation: "open capture file", reason: lastErrorText())
        }
        defer { _ = systemClose(descriptor) }
        var content: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress, buffer.count)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .fileSystem(path: path, operation: "read capture file", reason: lastErrorText())
            }
            if count == 0 { return content }
            content += chunk[0..<count]
        }
    }

    private static func systemClose(_ descriptor: Int32) -> Int32 {
        #if canImport(Darwin)
        return Darwin.close(descriptor)
        #elseif canImport(Musl)
        return Musl.close(descriptor)
        #else
        return Glibc.close(descriptor)
        #endif
    }

    private static func lastErrorText() -> String {
        let code = errno
        return "\(String(cString: strerror(code))) (errno \(code))"
    }
}
