import BeaconCore
import BeaconFleet
import HCI
import HCITransports

/// A host on a controller opened through `ControllerTransports`, subscribed before any
/// command, collecting reports by sending a marker command (its answer comes after
/// everything delivered before it). For simulations and tests on the virtual radio, where
/// the caller steps air time and then asks what arrived meanwhile.
public final class ScenarioHost {
    public let host: HostController
    private var events: AsyncStream<HostControllerEvent>.AsyncIterator

    /// Opens `spec`, resets the controller and unmasks the events a beacon host needs.
    public init(_ spec: HCITransportSpec) async throws {
        host = HostController(transport: try await ControllerTransports.open(spec))
        events = await host.events(bufferSize: 1 << 20).makeAsyncIterator()
        try await ControllerBringUp.resetAndUnmask(host)
    }

    /// The legacy and extended reports received since the last call, as (address, data, RSSI).
    public func reports() async throws -> [(address: BluetoothAddress, data: [UInt8], rssi: Int8?)] {
        _ = try await host.send(ReadBDADDR())
        var collected: [(address: BluetoothAddress, data: [UInt8], rssi: Int8?)] = []
        while let element = await events.next() {
            guard case .event(let event) = element else { continue }
            switch event {
            case .commandComplete(let complete) where complete.opcode == .readBDADDR:
                return collected
            case .le(.advertisingReport(let reports)):
                collected += reports.map { ($0.address, $0.data, $0.rssi) }
            case .le(.extendedAdvertisingReport(let reports)):
                collected += reports.map { ($0.address, $0.data, $0.rssi) }
            default:
                break
            }
        }
        return collected
    }

    public func close() async {
        await host.close()
    }
}
