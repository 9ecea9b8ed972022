import BeaconCore
import HCI
import HCITransports
import Synchronization

/// A second controller on the RootCanal air, driven by this project's own host stack
/// (`HostController` over the TCP transport), scanning passively with duplicate filtering
/// off so that every advertisement is reported, and keeping what it hears.
final class AirScanner: Sendable {
    struct Sighting: Sendable {
        let time: ContinuousClock.Instant
        let address: BluetoothAddress
        let addressType: LEAddressType
        let eventType: HCI.LEAdvertisingReport.EventType
        let data: [UInt8]
    }

    private let host: HostController
    private let sightings = Mutex<[Sighting]>([])
    private let listener = Mutex<Task<Void, Never>?>(nil)

    private init(host: HostController) {
        self.host = host
    }

    /// Connects to RootCanal's HCI port (a new controller) and starts a legacy passive scan.
    static func start(port: UInt16) async throws -> AirScanner {
        let transport = try await TCPClientTransport.connect(host: "127.0.0.1", port: port)
        let scanner = AirScanner(host: HostController(transport: transport, defaultTimeout: .seconds(5)))
        let events = await scanner.host.events()
        let task = Task { [scanner] in
            for await event in events {
                guard case .event(.le(.advertisingReport(let reports))) = event else { continue }
                let now = ContinuousClock.now
                scanner.sightings.withLock { list in
                    for report in reports {
                        list.append(Sighting(
                            time: now, address: report.address, addressType: report.addressType,
                            eventType: report.eventType, data: report.data))
                    }
                }
            }
        }
        scanner.listener.withLock { $0 = task }
        let host = scanner.host
        try await host.send(Reset())
        // RootCanal leaves LE Meta masked after Reset.
        try await host.send(SetEventMask(mask: .beaconHost))
        try await host.send(LESetEventMask(mask: .beaconHost))
        // Window = interval: listen all the time (Core v5.4 Vol 4 Part E 7.8.10).
        let tenMilliseconds = try ScanInterval(milliseconds: 10)
        try await host.send(LESetScanParameters(type: .passive, interval: tenMilliseconds, window: tenMilliseconds))
        try await host.send(LESetScanEnable(true, filterDuplicates: false))
        return scanner
    }

    var all: [Sighting] { sightings.withLock { $0 } }

    /// Waits until every payload in `payloads` was heard, or `timeout`; returns those missing.
    func waitToHear(_ payloads: Set<[UInt8]>, timeout: Duration) async -> Set<[UInt8]> {
        let deadline = ContinuousClock.now + timeout
        while true {
            let heard = Set(all.map(\.data))
            let missing = payloads.subtracting(heard)
            if missing.isEmpty || ContinuousClock.now >= deadline { return missing }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    func stop() async {
        try? await host.send(LESetScanEnable(false))
        await host.close()
        listener.withLock { $0?.cancel() }
    }
}
