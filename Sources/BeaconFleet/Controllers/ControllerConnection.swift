import HCI
import HCITransports

/// How a use case reaches one controller: the transport spec, the platform that opens it
/// (`ControllerPlatform`), the btsnoop capture to record into (if any) and how long a
/// command may go unanswered.
///
/// The capture outlives every connection opened through it, so that a restart after a
/// dropped link goes on recording into the same file; its owner closes it once, at the end.
public struct ControllerConnection: Sendable {
    public var spec: HCITransportSpec
    public var platform: any ControllerPlatform
    public var capture: BTSnoopWriter?
    public var commandTimeout: Duration

    public init(
        _ spec: HCITransportSpec, platform: any ControllerPlatform, capture: BTSnoopWriter? = nil,
        commandTimeout: Duration = .seconds(2)
    ) {
        self.spec = spec
        self.platform = platform
        self.capture = capture
        self.commandTimeout = commandTimeout
    }

    /// Opens the transport, recording into the capture when there is one.
    public func openTransport() async throws(HCITransportError) -> any HCITransport {
        let transport = try await platform.openTransport(spec)
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

    /// The advertising sets bluetoothd holds on a kernel controller, asked of the platform
    /// (the kernel's management interface) with `timeout`, as the advertiser reads them.
    public func occupiedSetsReader(timeout: Duration) -> OccupiedAdvertisingSetsReader {
        let platform = platform
        return { (index: UInt16) async throws(AdvertisingError) -> OccupiedAdvertisingSets in
            do throws(HCITransportError) {
                return try await platform.occupiedAdvertisingSets(index: index, timeout: timeout)
            } catch {
                throw .occupiedSetsUnknown(error)
            }
        }
    }
}
