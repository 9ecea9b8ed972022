#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What kind of file a `--input` names.
enum VerifyInputKind {
    /// Whether `path` (`-`: standard input) is a regular file, which can be replayed on its
    /// own clock; a pipe, terminal or socket may be a live stream and is listened to live.
    static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        let found = path == "-" ? fstat(STDIN_FILENO, &status) == 0 : stat(path, &status) == 0
        return found && (status.st_mode & S_IFMT) == S_IFREG
    }
}
