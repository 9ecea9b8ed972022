import BeaconTestKit
import BeaconCore
import ClockTestKit
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

    /// What the scanner heard, in order, and where in it each barrier's answer came.
    private struct Heard: Sendable {
        var sightings: [Sighting] = []
        var barriers: [Int] = []
    }

    private let host: HostController
    private let heard = WatchedState(Heard())
    private let listener = Mutex<Task<Void, Never>?>(nil)

    private init(host: HostController) {
        self.host = host
    }

    /// Connects to RootCanal's HCI port (a new controller) and starts a legacy passive scan.
    static func start(port: UInt16) async throws -> AirScanner {
        let transport = try await TCPClientTransport.connect(host: "127.0.0.1", port: port)
        // RootCanal answers at once: the timeout is a safety net for a machine under load.
        let scanner = AirScanner(host: HostController(transport: transport, defaultTimeout: .seconds(60)))
        let events = await scanner.host.events()
        let task = Task { [scanner] in
            for await event in events {
                switch event {
                case .event(.le(.advertisingReport(let reports))):
                    let now = ContinuousClock.now
                    scanner.heard.update { heard in
                        for report in reports {
                            heard.sightings.append(Sighting(
                                time: now, address: report.address, addressType: report.addressType,
                                eventType: report.eventType, data: report.data))
                        }
                    }
                case .event(.commandComplete(let complete)) where complete.opcode == .readBDADDR:
                    scanner.heard.update { $0.barriers.append($0.sightings.count) }
                default:
                    continue
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

    var all: [Sighting] { heard.value.sightings }

    /// Waits until every payload in `payloads` was heard: resumes with the report that
    /// completes the set. Returns those still missing after the safety deadline (90 s, within
    /// the suites' time limit), which only a beacon that never advertises reaches.
    func waitToHear(_ payloads: Set<[UInt8]>) async -> Set<[UInt8]> {
        _ = try? await heard.wait(for: "hearing \(payloads.count) payload(s)", safetyDeadline: .seconds(90)) { heard in
            payloads.isSubset(of: Set(heard.sightings.map(\.data)))
        }
        return payloads.subtracting(all.map(\.data))
    }

    /// A point in what this scanner heard after which everything was put on the air after
    /// this call: RootCanal answers a command after sending whatever it had already sent
    /// this controller, and the answer reaches the listener in order with the reports.
    /// Returns the number of sightings before that point.
    func barrier() async throws -> Int {
        let earlier = heard.value.barriers.count
        _ = try await host.send(ReadBDADDR())
        let heard = try await heard.wait(for: "the answer to the barrier's Read BD_ADDR") { $0.barriers.count > earlier }
        return heard.barriers[earlier]
    }

    func stop() async {
        try? await host.send(LESetScanEnable(false))
        await host.close()
        listener.withLock { $0?.cancel() }
    }
}
