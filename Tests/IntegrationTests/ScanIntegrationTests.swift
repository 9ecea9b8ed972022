import BeaconCLI
import BeaconCore
import BeaconFleet
import Foundation
import HCI
import HCITransports
import Testing

/// `beaconctl scan` on RootCanal: one controller advertises an iBeacon with legacy
/// commands sent through `HostController`; `scan` on a second controller, run in this
/// process, must report it with its exact identity and measured power. RSSI is synthetic
/// on RootCanal and never checked.
@Suite("scan on RootCanal", .requiresRootCanal, .timeLimit(.minutes(2)))
struct ScanIntegrationTests {
    static let identity = BeaconIdentity(
        uuid: ProximityUUID(high: 0x89D6_E936_F61F_4227, low: 0xBCD2_6E94_C5A6_B2E3), major: 1, minor: 2)
    static let advertisement = IBeaconAdvertisement(identity: identity, measuredPower: -59)

    /// Starts a 100 ms non-connectable iBeacon on a new controller of `rootCanal`.
    static func advertise(on rootCanal: RootCanal) async throws -> HostController {
        let transport = try await TCPClientTransport.connect(host: "127.0.0.1", port: rootCanal.hciPort)
        // RootCanal answers at once: the timeout is a safety net for a machine under load.
        let host = HostController(transport: transport, defaultTimeout: .seconds(60))
        try await host.send(Reset())
        try await host.send(LESetAdvertisingParameters(intervalMin: .beaconDefault, intervalMax: .beaconDefault))
        try await host.send(try LESetAdvertisingData(data: advertisement.advertisingData))
        try await host.send(LESetAdvertisingEnable(true))
        return host
    }

    /// Runs `beaconctl` in this process and returns its exit status and output. A run on a
    /// controller gets a 60 s command timeout: the 2 s default is for hardware, and here the
    /// answers go through this process's task pool, which the other tests keep busy.
    static func beaconctl(_ arguments: [String]) async -> (status: Int32, output: String, error: String) {
        let captured = CapturedOutput()
        let onController = arguments.contains("--hci") && !arguments.contains("--command-timeout")
        let status = await Console.$current.withValue(captured.console()) {
            await BeaconCtlRunner.run(arguments + (onController ? ["--command-timeout", "60"] : []))
        }
        return (status, captured.output, captured.error)
    }

    static func sightings(in output: String) throws -> [Sighting] {
        try SightingRecording.jsonLines(text: output, source: "scan output")
    }

    @Test("--unix-time stamps sightings with the wall clock; --receiver names them")
    func unixTimeAndReceiverName() async throws {
        try await withRootCanal { rootCanal in
            let advertiser = try await Self.advertise(on: rootCanal)
            let before = Date().timeIntervalSince1970
            let result = await Self.beaconctl([
                "scan", "--hci", rootCanal.hciTransportSpec, "--duration", "1", "--format", "jsonl",
                "--unix-time", "--receiver", "store-9:hci0",
            ])
            let after = Date().timeIntervalSince1970
            #expect(result.status == 0, "\(result.error)")
            let sightings = try Self.sightings(in: result.output)
            #expect(!sightings.isEmpty, "no sightings: \(result.error)")
            for sighting in sightings {
                #expect(sighting.receiver == "store-9:hci0")
                #expect(sighting.clock == .unix, "each line says it is on Unix time")
                // A millisecond either side: the offset is read from the wall clock once.
                #expect(sighting.time >= before - 0.001 && sighting.time <= after + 0.001, "at \(sighting.time), run \(before)…\(after)")
            }
            await advertiser.close()
        }
    }

    @Test("legacy and extended scanning both hear a legacy iBeacon", arguments: ["legacy", "extended"])
    func scanHearsTheBeacon(family: String) async throws {
        try await withRootCanal { rootCanal in
            let advertiser = try await Self.advertise(on: rootCanal)
            let before = ContinuousClock.now
            let result = await Self.beaconctl([
                "scan", "--hci", rootCanal.hciTransportSpec, "--family", family, "--duration", "2", "--format", "jsonl",
            ])
            let commandTook = (ContinuousClock.now - before).secondsValue
            #expect(result.status == 0, "\(result.error)")
            let sightings = try Self.sightings(in: result.output)
            // 100 ms advertising for 2 s: about 20 reports on a quiet machine; how many a
            // loaded one delivers within the 2 s is not the point.
            #expect(!sightings.isEmpty, "no sightings: \(result.error)")
            for sighting in sightings {
                #expect(sighting.advertisement == Self.advertisement)
                #expect(sighting.receiver == ReceiverName.standard(controller: rootCanal.hciTransportSpec), "HOST:CONTROLLER")
                // Seconds since the scan started, which was inside the command's run.
                #expect(sighting.time >= 0 && sighting.time <= commandTook, "at \(sighting.time) s of \(commandTook) s")
            }
            #expect(Set(sightings.map(\.address)).count == 1)
            #expect(zip(sightings, sightings.dropFirst()).allSatisfy { $0.time <= $1.time })
            await advertiser.close()
        }
    }

    @Test("the capture of a scan yields the sightings the scan reported")
    func snoopedScanReadsBack() async throws {
        try await withRootCanal { rootCanal in
            let advertiser = try await Self.advertise(on: rootCanal)
            let capture = NSTemporaryDirectory() + "beaconctl-scan-\(UUID().uuidString).btsnoop"
            defer { try? FileManager.default.removeItem(atPath: capture) }
            let live = await Self.beaconctl([
                "scan", "--hci", rootCanal.hciTransportSpec, "--duration", "1.5", "--format", "jsonl", "--snoop", capture,
            ])
            await advertiser.close()
            #expect(live.status == 0, "\(live.error)")
            let scanned = try Self.sightings(in: live.output)
            #expect(!scanned.isEmpty)
            let replayed = await Self.beaconctl(["scan", "--input", capture, "--format", "jsonl"])
            #expect(replayed.status == 0, "\(replayed.error)")
            let fromCapture = try Self.sightings(in: replayed.output)
            // Same packets, read twice: the capture may hold a few more (reports that arrived
            // while scanning was being disabled), never fewer, and the same readings in order.
            #expect(fromCapture.count >= scanned.count)
            #expect(Array(fromCapture.prefix(scanned.count).map(\.rssi)) == scanned.map(\.rssi))
            #expect(fromCapture.allSatisfy { $0.advertisement == Self.advertisement && $0.receiver == capture })
        }
    }

    @Test("the table of a scan ranges the beacon")
    func tableAtTheEnd() async throws {
        try await withRootCanal { rootCanal in
            let advertiser = try await Self.advertise(on: rootCanal)
            let result = await Self.beaconctl(["scan", "--hci", rootCanal.hciTransportSpec, "--duration", "1.5", "--format", "text"])
            await advertiser.close()
            #expect(result.status == 0, "\(result.error)")
            let lines = result.output.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("Scanning \(rootCanal.hciTransportSpec) (extended scanning), ") == true)
            #expect(lines.first?.hasSuffix(" of 1 beacon") == true)
            #expect(lines.dropFirst().first?.hasPrefix("IDENTITY ") == true)
            #expect(lines.last?.hasPrefix("89D6E936-F61F-4227-BCD2-6E94C5A6B2E3/1/2  -  ") == true)
        }
    }
}
