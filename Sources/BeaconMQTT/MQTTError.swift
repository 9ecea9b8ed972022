/// What went wrong talking to a broker, in words that say what to do.
public enum MQTTError: Error, Hashable, Sendable, CustomStringConvertible {
    case invalidURL(String, String)
    case credentials(String)
    /// A TLS file or setting that cannot work, found before connecting.
    case tls(String)
    /// The broker answered the connection with a refusal that retrying will not change.
    case refused(broker: String, reason: String)
    /// The TLS handshake failed for a reason retrying will not change.
    case tlsRefused(broker: String, reason: String)
    /// The broker refused a subscription (SUBACK reason code): nothing published there
    /// would ever arrive.
    case subscriptionRefused(broker: String, topic: String, reason: String)
    case library(String)

    public var description: String {
        switch self {
        case .invalidURL(let url, let why): "\(url): not a broker URL: \(why)"
        case .credentials(let why): why
        case .tls(let why): why
        case .refused(let broker, let reason): "\(broker) refused the connection: \(reason)"
        case .tlsRefused(let broker, let reason): "\(broker): the TLS connection failed: \(reason)"
        case .subscriptionRefused(let broker, let topic, let reason):
            "\(broker) refused the subscription to \(topic): \(reason); the broker's ACL must let this client read it (`topic read \(topic)` or a `pattern read`)"
        case .library(let why): why
        }
    }
}
