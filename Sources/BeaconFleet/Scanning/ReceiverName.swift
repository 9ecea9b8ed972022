#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The name a live scan's sightings carry: `HOST:CONTROLLER` (`store-12:hci0`). Stable
/// across restarts and different between machines, so that the streams of many receivers
/// can be merged and still say who heard what. `scan --receiver` sets another.
public enum ReceiverName {
    public static func standard(controller: String) -> String {
        "\(hostName()):\(controller)"
    }

    /// This machine's host name (`localhost` when it has none).
    public static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }

    /// Whether a name a profile or report carries is this receiver's: the standard name,
    /// or the bare controller as names were before they carried the host.
    public static func matches(_ name: String, controller: String) -> Bool {
        name == standard(controller: controller) || name == controller
    }
}
