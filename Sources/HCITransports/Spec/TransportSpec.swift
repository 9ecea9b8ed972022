import HCI
/// One string that names a controller, the same from tests to the command line.
///
/// | spec | meaning |
/// |---|---|
/// | `hci0`, `hci-socket:0` | Linux kernel HCI socket, RAW channel (coexists with bluetoothd) |
/// | `hci-user:0` | Linux kernel HCI USER channel (exclusive; the device must be down) |
/// | `tcp-client:HOST:PORT` | H4 over TCP (RootCanal, Bumble, HCI proxies); IPv6 as `[::1]:PORT` |
/// | `serial:PATH[,BAUD][,rtscts]` | H4 over a UART, 115200 baud unless given |
/// | `virtual[:SCENARIO]` | the in-process virtual radio |
///
/// `description` prints the canonical form, which parses back to an equal value.
public enum HCITransportSpec: Hashable, Sendable {
    /// Kernel HCI socket bound to the RAW channel of controller `hciN`.
    case kernelSocket(device: UInt16)
    /// Kernel HCI socket bound to the USER channel of controller `hciN`.
    case kernelUserChannel(device: UInt16)
    /// H4 over a TCP connection. `host` is a name, an IPv4 address or a bare IPv6 address.
    case tcpClient(host: String, port: UInt16)
    /// H4 over a serial port. `baudRate` is one of ``SerialBaudRates/supported``.
    case serial(path: String, baudRate: Int, hardwareFlowControl: Bool)
    /// The virtual radio, optionally with a named scenario.
    case virtual(scenario: String?)

    /// The forms a spec may take, for help texts and error messages.
    public static let acceptedForms = [
        "hciN or hci-socket:N (kernel socket)",
        "hci-user:N (kernel user channel)",
        "tcp-client:HOST:PORT (IPv6: tcp-client:[::1]:PORT)",
        "serial:PATH[,BAUD][,rtscts]",
        "virtual[:SCENARIO]",
    ]

    /// The highest controller index: the kernel reserves 0xFFFF for "no device".
    public static let largestDeviceIndex: UInt16 = 0xFFFE
}

extension HCITransportSpec: CustomStringConvertible {
    public var description: String {
        switch self {
        case .kernelSocket(let device):
            return "hci\(device)"
        case .kernelUserChannel(let device):
            return "hci-user:\(device)"
        case .tcpClient(let host, let port):
            // A colon can only be in an IPv6 address, which needs brackets to keep the port apart.
            return host.contains(":") ? "tcp-client:[\(host)]:\(port)" : "tcp-client:\(host):\(port)"
        case .serial(let path, let baudRate, let hardwareFlowControl):
            var text = "serial:\(path)"
            if baudRate != SerialBaudRates.standard { text += ",\(baudRate)" }
            if hardwareFlowControl { text += ",rtscts" }
            return text
        case .virtual(let scenario):
            return scenario.map { "virtual:\($0)" } ?? "virtual"
        }
    }
}

extension HCITransportSpec: LosslessStringConvertible {
    /// Parses a spec, or returns `nil`; ``init(parsing:)`` says what is wrong.
    public init?(_ description: String) {
        guard let spec = try? HCITransportSpec(parsing: description) else { return nil }
        self = spec
    }
}
