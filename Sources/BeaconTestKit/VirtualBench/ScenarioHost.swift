import BeaconCore
import BeaconFleet
import BeaconPlatform
import HCI
import HCITransports

/// A host on a controller opened through `BeaconPlatform`'s `ControllerTransports`, subscribed before any
/// command, collecting reports by sending a marker command (its answer comes after
/// everything delivered before it). For simulations and tests on the virtual radio, where
/// the caller steps air time and then asks what arrived meanwhile.
public final class ScenarioHost {
    /// An advertising report as heard: who sent it, its data and its RSSI.
    public typealias Report = (address: BluetoothAddress, data: [UInt8], rssi: Int8?)

    public let host: HostController
    private var events: AsyncStream<HostControllerEvent>.AsyncIterator

    /// Opens `spec`, resets the controller and unmasks the events a beacon host needs.
    public init(_ spec: HCITransportSpec) async throws {
        // The virtual radio answers every command at once: the timeout is a safety net, long
        // enough that a machine busy with other work never reaches it.
        host = HostController(transport: try await ControllerTransports.open(spec), defaultTimeout: .seconds(60))
        events = await host.events(bufferSize: 1 << 20).makeAsyncIterator()
        try await ControllerBringUp.resetAndUnmask(host)
    }

    /// The legacy and extended reports received since the last call, as (address, data, RSSI).
    public func reports() async throws -> [Report] {
        _ = try await host.send(ReadBDADDR())
        var collected: [Report] = []
        while let element = await events.next() {
            guard case .event(let event) = element else { continue }
            if case .commandComplete(let complete) = event, complete.opcode == .readBDADDR { return collected }
            collected += Self.reports(in: event)
        }
        return collected
    }

    /// Waits for reports as they arrive, without asking, until `count` of them satisfy
    /// `isWanted`: for an air that runs in real time, where the reports come when they come.
    /// Returns the wanted ones; fewer when the link ends or the task is cancelled first.
    public func awaitReports(_ count: Int, where isWanted: (Report) -> Bool) async -> [Report] {
        var wanted: [Report] = []
        while wanted.count < count, let element = await events.next() {
            guard case .event(let event) = element else { continue }
            wanted += Self.reports(in: event).filter(isWanted)
        }
        return wanted
    }

    private static func reports(in event: HCIEvent) -> [Report] {
        switch event {
        case .le(.advertisingReport(let reports)): reports.map { ($0.address, $0.data, $0.rssi) }
        case .le(.extendedAdvertisingReport(let reports)): reports.map { ($0.address, $0.data, $0.rssi) }
        default: []
        }
    }

    public func close() async {
        await host.close()
    }
}
