/// What went wrong talking to a broker, in words that say what to do.
public enum MQTTError: Error, Hashable, Sendable, CustomStringConvertible {
    case invalidURL(String, String)
    case credentials(String)
    /// The broker answered the connection with a refusal that retrying will not change.
    case refused(broker: String, reason: String)
    case library(String)

    public var description: String {
        switch self {
        case .invalidURL(let url, let why): "\(url): not a broker URL: \(why)"
        case .credentials(let why): why
        case .refused(let broker, let reason): "\(broker) refused the connection: \(reason)"
        case .library(let why): why
        }
    }
}
