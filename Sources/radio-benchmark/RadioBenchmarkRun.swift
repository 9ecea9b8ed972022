import BeaconCore
import HCI
import VirtualRadio

/// One measured simulation: `beaconCount` iBeacons advertising every 100 ms from extended
/// sets (16 per controller, as a host with many beacons uses them), each placed at its own
/// point of a 100 m × 100 m grid, and optionally one scanner in the middle scanning
/// continuously, whose host (`HostController`) decodes every report.
struct RadioBenchmarkRun {
    /// Who listens.
    enum Listener {
        /// Nobody: the bare cost of scheduling advertising events onto an empty air.
        case none
        /// A scanner whose transport is read and every packet decoded as an HCI event, with
        /// no host controller: the air's own cost with delivery.
        case decodingTransport
        /// A scanner driven by `HostController`, every report decoded and handed to a
        /// subscriber: what beaconctl's scan does.
        case hostController
    }

    let beaconCount: Int
    let listener: Listener

    struct Result {
        var simulated: Duration
        var wall: Duration
        var advertisingEvents: Int
        var reports: Int

        var eventsPerWallSecond: Double { Double(advertisingEvents) / wall.secondsValue }
        var realTimeFactor: Double { simulated.secondsValue / wall.secondsValue }
    }

    static let setsPerController = 16

    /// Air time to simulate: enough events to measure, little enough to finish quickly.
    var simulated: Duration {
        .seconds(max(10, min(600, 60_000 / beaconCount)))
    }

    func run() async throws -> Result {
        let model = PropagationModel(pathLossExponent: 2.2, shadowingSigma: 4, receiverSensitivity: -100)
        let air = VirtualAir(name: "benchmark", configuration: .init(seed: 7, propagation: model))
        let uuid = ProximityUUID(high: 0x89D6_E936_F61F_4227, low: 0xBCD2_6E94_C5A6_B2E3)
        let side = Int(Double(beaconCount).squareRoot().rounded(.up))
        var advertisers: [HostController] = []
        var beacon = 0
        while beacon < beaconCount {
            let host = HostController(transport: air.attachController())
            try await host.send(Reset())
            var handles: [AdvertisingHandle] = []
            for setIndex in 0..<min(Self.setsPerController, beaconCount - beacon) {
                guard let handle = AdvertisingHandle(rawValue: UInt8(setIndex)) else { break }
                let identity = BeaconIdentity(uuid: uuid, major: 1, minor: UInt16(beacon))
                air.placeBeacon(identity, at: PlanPoint(
                    x: Double(beacon % side) * 100 / Double(side), y: Double(beacon / side) * 100 / Double(side)))
                _ = try await host.send(LESetExtendedAdvertisingParameters(
                    handle: handle, intervalMin: .beaconDefault, intervalMax: .beaconDefault, txPower: 0))
                try await host.send(try LESetExtendedAdvertisingData(
                    handle: handle, data: IBeaconAdvertisement(identity: identity, measuredPower: -41).advertisingData))
                handles.append(handle)
                beacon += 1
            }
            try await host.send(try LESetExtendedAdvertisingEnable(enabling: handles))
            advertisers.append(host)
        }

        var scanner: HostController?
        var rawScanner: VirtualControllerTransport?
        var counting: Task<Int, Never>?
        let scannerConfiguration = VirtualControllerConfiguration.at(PlanPoint(x: 50, y: 50))
        switch listener {
        case .none:
            break
        case .hostController:
            let host = HostController(transport: air.attachController(scannerConfiguration))
            try await host.send(Reset())
            try await host.send(SetEventMask(mask: .beaconHost))
            try await host.send(LESetEventMask(mask: .beaconHost))
            try await host.send(LESetExtendedScanParameters(le1M: try .init(
                interval: try ScanInterval(milliseconds: 10), window: try ScanInterval(milliseconds: 10))))
            let events = await host.events(bufferSize: 1 << 24)
            // Counts reports until the answer to the Read BD_ADDR sent after the run.
            counting = Task {
                var reports = 0
                for await element in events {
                    guard case .event(let event) = element else { continue }
                    switch event {
                    case .le(.extendedAdvertisingReport(let batch)): reports += batch.count
                    case .commandComplete(let complete) where complete.opcode == .readBDADDR: return reports
                    default: break
                    }
                }
                return reports
            }
            try await host.send(try LESetExtendedScanEnable(true))
            scanner = host
        case .decodingTransport:
            let transport = air.attachController(scannerConfiguration)
            let commands: [HCICommandPacket] = [
                try HCICommandPacket(Reset()), try HCICommandPacket(SetEventMask(mask: .beaconHost)),
                try HCICommandPacket(LESetEventMask(mask: .beaconHost)),
                try HCICommandPacket(LESetExtendedScanParameters(le1M: try .init(
                    interval: try ScanInterval(milliseconds: 10), window: try ScanInterval(milliseconds: 10)))),
                try HCICommandPacket(try LESetExtendedScanEnable(true)),
            ]
            for command in commands {
                try await transport.send(command.packet)
            }
            let incoming = transport.incoming
            counting = Task {
                var reports = 0
                do {
                    for try await packet in incoming {
                        switch try? HCIEvent(packet: packet) {
                        case .le(.extendedAdvertisingReport(let batch))?: reports += batch.count
                        case .commandComplete(let complete)? where complete.opcode == .readBDADDR: return reports
                        default: break
                        }
                    }
                } catch {
                    return reports
                }
                return reports
            }
            rawScanner = transport
        }

        let clock = ContinuousClock()
        let eventsBefore = air.statistics.advertisingEvents
        let start = clock.now
        // One second of air at a time, so the host decodes while the air runs.
        let seconds = Int(simulated.components.seconds)
        for _ in 0..<seconds {
            air.advance(by: .seconds(1))
            await Task.yield()
        }
        var reports = 0
        if let scanner {
            _ = try await scanner.send(ReadBDADDR())
        }
        if let rawScanner {
            try await rawScanner.send(try HCICommandPacket(ReadBDADDR()).packet)
        }
        if let counting {
            reports = await counting.value
        }
        let wall = clock.now - start
        let events = air.statistics.advertisingEvents - eventsBefore

        for host in advertisers { await host.close() }
        await scanner?.close()
        await rawScanner?.close()
        air.shutdown()
        return Result(simulated: simulated, wall: wall, advertisingEvents: events, reports: reports)
    }
}
