import HCI
import HCITransports

/// How a use case reaches one controller: the transport spec, the btsnoop capture to record
/// into (if any) and how long a command may go unanswered.
///
/// The capture outlives every connection opened through it, so that a restart after a
/// dropped link goes on recording into the same file; its owner closes it once, at the end.
public struct ControllerConnection: Sendable {
    public var spec: HCITransportSpec
    public var capture: BTSnoopWriter?
    public var commandTimeout: Duration

    public init(_ spec: HCITransportSpec, capture: BTSnoopWriter? = nil, commandTimeout: Duration = .seconds(2)) {
        self.spec = spec
        self.capture = capture
        self.commandTimeout = commandTimeout
    }

    /// Opens the transport, recording into the capture when there is one.
    public func openTransport() async throws(HCITransportError) -> any HCITransport {
        let transport = try await ControllerTransports.open(spec)
        guard let capture else { return transport }
        return SnoopingTransport(wrapping: transport, writer: capture, closesWriter: false)
    }

    /// Opens the transport and starts a host controller on it.
    public func openHost() async throws(HCITransportError) -> HostController {
        HostController(transport: try await openTransport(), defaultTimeout: commandTimeout)
    }

    /// `openTransport` as a value, for the use cases that reopen after a dropped link.
    public var opener: BeaconAdvertiser.TransportOpener {
        { () async throws(HCITransportError) -> any HCITransport in try await openTransport() }
    }
}
