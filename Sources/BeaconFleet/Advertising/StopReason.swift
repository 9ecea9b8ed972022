/// Why a run ended cleanly.
public enum StopReason: Hashable, Sendable, CustomStringConvertible {
    /// The task running the advertiser was cancelled (SIGINT or SIGTERM in the command).
    case cancelled
    /// The requested duration elapsed.
    case durationElapsed

    public var description: String {
        switch self {
        case .cancelled: return "stop requested"
        case .durationElapsed: return "duration elapsed"
        }
    }
}
