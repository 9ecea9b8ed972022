/// Where an MQTT broker is and under which topic prefix beaconctl's topics live:
/// `mqtt://HOST[:PORT]/PREFIX` (TCP, port 1883 by default) or `mqtts://…` (TLS, 8883).
///
/// Credentials never go in the URL: a password on a command line is visible to every user
/// of the machine (`ps`) and lands in shell histories. `MQTTCredentials` reads them from
/// the environment or a file.
public struct MQTTBrokerURL: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var usesTLS: Bool
    /// Topic levels before beaconctl's own (`PREFIX/sightings/RECEIVER`), without a
    /// trailing `/`. Never empty: `beaconctl` when the URL has no path.
    public var topicPrefix: String

    public static let defaultPrefix = "beaconctl"

    public init(host: String, port: Int? = nil, usesTLS: Bool = false, topicPrefix: String = defaultPrefix) {
        self.host = host
        self.usesTLS = usesTLS
        self.port = port ?? (usesTLS ? 8883 : 1883)
        self.topicPrefix = topicPrefix
    }

    /// Whether `text` is meant as a broker (starts with `mqtt://` or `mqtts://`).
    public static func looksLikeBroker(_ text: String) -> Bool {
        text.hasPrefix("mqtt://") || text.hasPrefix("mqtts://")
    }

    /// `defaultPrefix` is the topic prefix when the URL has no path.
    public init(parsing text: String, defaultPrefix: String = Self.defaultPrefix) throws(MQTTError) {
        let usesTLS: Bool
        let rest: Substring
        if text.hasPrefix("mqtt://") {
            usesTLS = false
            rest = text.dropFirst("mqtt://".count)
        } else if text.hasPrefix("mqtts://") {
            usesTLS = true
            rest = text.dropFirst("mqtts://".count)
        } else {
            throw .invalidURL(text, "it must start with mqtt:// (or mqtts:// for TLS), e.g. mqtt://broker.local/beaconctl")
        }
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count).drop { $0 == "/" }
        if authority.contains("@") {
            throw .invalidURL(text, "credentials do not go in the URL (a command line is visible to every user); put them in \(MQTTCredentials.usernameVariable) and \(MQTTCredentials.passwordVariable), or in a file named by \(MQTTCredentials.fileVariable)")
        }
        var host = Substring(authority)
        var port: Int?
        if host.hasPrefix("[") {
            // An IPv6 literal: [::1]:1883.
            guard let close = host.firstIndex(of: "]") else { throw .invalidURL(text, "an IPv6 address needs its closing ]") }
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") { port = try Self.port(after.dropFirst(), in: text) } else if !after.isEmpty {
                throw .invalidURL(text, "unexpected `\(after)` after the IPv6 address")
            }
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            port = try Self.port(host[host.index(after: colon)...], in: text)
            host = host[..<colon]
            guard !host.contains(":") else {
                throw .invalidURL(text, "an IPv6 address goes in brackets, e.g. mqtt://[::1]:1883/beaconctl")
            }
        }
        guard !host.isEmpty else { throw .invalidURL(text, "no broker host name") }
        guard !host.unicodeScalars.contains(where: Self.isSpaceOrControl) else {
            throw .invalidURL(text, "the broker host name contains a space or control character")
        }
        var prefix = String(path)
        while prefix.hasSuffix("/") { prefix.removeLast() }
        if prefix.isEmpty { prefix = defaultPrefix }
        // MQTT 5.0, 4.7.1: + and # are wildcards in filters and never part of a topic name;
        // 1.5.4: a topic must not contain U+0000; 4.7.2: topics starting with $ belong to the broker.
        guard !prefix.contains("+"), !prefix.contains("#") else {
            throw .invalidURL(text, "the topic prefix `\(prefix)` must not contain the wildcards + or #")
        }
        guard !prefix.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidURL(text, "the topic prefix contains a control character")
        }
        guard !prefix.hasPrefix("$") else {
            throw .invalidURL(text, "the topic prefix `\(prefix)` must not start with $: such topics belong to the broker (e.g. $SYS)")
        }
        self.init(host: String(host), port: port, usesTLS: usesTLS, topicPrefix: prefix)
    }

    private static func isSpaceOrControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
    }

    /// Digits only (no sign or spaces, which `Int(_:)` would take), at most five of them.
    private static func port(_ text: Substring, in url: String) throws(MQTTError) -> Int {
        guard text.count <= 5, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let port = Int(text), (1...65_535).contains(port)
        else {
            throw .invalidURL(url, "the port `\(text)` is not a number from 1 to 65535")
        }
        return port
    }

    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(usesTLS ? "mqtts" : "mqtt")://\(shownHost):\(port)/\(topicPrefix)"
    }
}
