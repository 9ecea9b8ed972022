#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the metrics are served: `--metrics [ADDRESS:]PORT`. A port alone is loopback
/// (`127.0.0.1`): metrics are for the monitoring system of the host or of a network someone
/// chose to open them to (`0.0.0.0:PORT`, `[::]:PORT`). Port 0 lets the kernel choose.
public struct MetricsListenAddress: Hashable, Sendable, CustomStringConvertible {
    public enum Family: Hashable, Sendable {
        case ipv4
        case ipv6
    }

    /// The numeric address, as written (`127.0.0.1`, `::1`): names are not resolved.
    public var host: String
    public var family: Family
    public var port: UInt16

    public init(host: String, family: Family, port: UInt16) {
        self.host = host
        self.family = family
        self.port = port
    }

    public static let defaultHost = "127.0.0.1"

    /// `9464`, `127.0.0.1:9464`, `0.0.0.0:9464`, `[::1]:9464`, `[::]:0`.
    public init(parsing text: String) throws(MetricsAddressError) {
        let hostText: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let closing = text.firstIndex(of: "]"), text[text.index(after: closing)...].hasPrefix(":") else {
                throw MetricsAddressError(text, "an IPv6 address is written in brackets before its port: [::1]:9464")
            }
            hostText = text[text.index(after: text.startIndex)..<closing]
            portText = text[text.index(closing, offsetBy: 2)...]
            guard Self.parses(hostText, as: AF_INET6) else {
                throw MetricsAddressError(text, "\(hostText) is not an IPv6 address")
            }
            family = .ipv6
        } else if let colon = text.lastIndex(of: ":") {
            hostText = text[..<colon]
            portText = text[text.index(after: colon)...]
            if hostText.contains(":") {
                throw MetricsAddressError(text, "an IPv6 address is written in brackets before its port: [\(hostText)]:\(portText)")
            }
            guard Self.parses(hostText, as: AF_INET) else {
                throw MetricsAddressError(text, "\(hostText.isEmpty ? "an empty address" : String(hostText)) is not an IPv4 address (names are not resolved: write 127.0.0.1, 0.0.0.0 or [::1])")
            }
            family = .ipv4
        } else {
            hostText = Substring(Self.defaultHost)
            portText = Substring(text)
            family = .ipv4
        }
        guard !portText.isEmpty, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), portText.count <= 5,
              let port = UInt16(portText)
        else {
            throw MetricsAddressError(text, "the port must be a number from 0 to 65535 (0: any free port)")
        }
        self.host = String(hostText)
        self.port = port
    }

    /// `127.0.0.1:9464`, `[::1]:9464`.
    public var description: String {
        family == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The URL a scraper reads.
    public var url: String { "http://\(description)/metrics" }

    private static func parses(_ host: Substring, as family: Int32) -> Bool {
        guard !host.isEmpty, host.utf8.count <= 45 else { return false }
        var buffer = [UInt8](repeating: 0, count: 16)
        return String(host).withCString { inet_pton(family, $0, &buffer) } == 1
    }
}

/// A `--metrics` value that is not `[ADDRESS:]PORT`.
public struct MetricsAddressError: Error, Hashable, Sendable, CustomStringConvertible {
    public var value: String
    public var reason: String

    init(_ value: String, _ reason: String) {
        self.value = value
        self.reason = reason
    }

    public var description: String { "\(value) is not [ADDRESS:]PORT: \(reason)" }
}
