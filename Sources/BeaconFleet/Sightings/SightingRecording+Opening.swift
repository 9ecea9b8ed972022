#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SightingRecording {
    /// Whether `path` (`-`: standard input) is a regular file, which can be replayed on its
    /// own clock; a pipe, terminal or socket may be a live stream and is listened to live.
    public static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        let found = path == "-" ? fstat(STDIN_FILENO, &status) == 0 : stat(path, &status) == 0
        return found && (status.st_mode & S_IFMT) == S_IFREG
    }

    /// How opening a recording within a deadline ended.
    public enum Opening: Sendable {
        case opened(SightingRecording)
        case failed(SightingStreamError)
        /// Nothing arrived within this long (a pipe that never said what it carries).
        case deadline(Duration)
        /// The user stopped it first.
        case stopped
    }

    /// Opens `path` (which waits for its first bytes, to tell what it carries), giving up
    /// after `deadline` of `clock` when given, or when the user stops it (`stops`).
    public static func open(
        path: String, within deadline: Duration?, stops: any StopRequests, clock: any Clock<Duration> = ContinuousClock()
    ) async -> Opening {
        let outcome = await firstWithin(deadline, of: clock, stops: stops) { () -> Opening? in
            do throws(SightingStreamError) {
                return .opened(try await SightingRecording.open(path: path))
            } catch {
                return Task.isCancelled ? nil : .failed(error)
            }
        }
        switch outcome {
        case .value(let opening): return opening
        case .deadline: return .deadline(deadline ?? .zero)
        case .stopped: return .stopped
        }
    }
}
