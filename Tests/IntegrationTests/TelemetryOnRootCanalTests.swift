import BeaconCLI
import BeaconCore
import BeaconFleet
import Foundation
import Testing

/// A beacon on Bumble (Peripherals/tlm_beacon.py, written from the Eddystone-TLM document)
/// interleaving an iBeacon and an Eddystone-TLM frame from one address on RootCanal, and
/// `beaconctl scan --telemetry` on a second controller: sightings and telemetry readings of
/// the same address. RSSI is synthetic on RootCanal and never checked.
@Suite("telemetry on RootCanal", .requiresRootCanal, .timeLimit(.minutes(2)))
struct TelemetryOnRootCanalTests {
    static let address = BluetoothAddress("F0:4C:0A:00:00:07") ?? .zero

    @Test("an iBeacon and its TLM frames from one address: sightings and readings with that address")
    func iBeaconAndTLMFromOneAddress() async throws {
        try await withRootCanal { rootCanal in
            let installation = try RootCanalInstallation.current.get()
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peripherals/tlm_beacon.py")
            let beacon = try BeaconctlProcess(
                program: installation.venv.appendingPathComponent("bin/python3"),
                arguments: [
                    script.path, rootCanal.hciTransportSpec, "\(Self.address)", "\(ScanIntegrationTests.identity.uuid)",
                    "1", "2", "2950", "23.25",
                ],
                environment: ["PYTHONUNBUFFERED": "1"])
            defer { beacon.signal(SIGKILL) }
            _ = try await beacon.waitForLine("ready (both frames on the air)") { $0 == "ready" }
            let result = await ScanIntegrationTests.beaconctl([
                "scan", "--hci", rootCanal.hciTransportSpec, "--duration", "3", "--format", "jsonl", "--telemetry",
            ])
            #expect(result.status == 0, "\(result.error)")
            var readings: [TelemetryReading] = []
            var sightings: [Sighting] = []
            for (index, line) in result.output.split(separator: "\n").enumerated() {
                if let sighting = try SightingJSONLines.decode(
                    line: Array(line.utf8), lineNumber: index + 1, source: "scan output", defaultClock: .elapsed,
                    telemetry: { readings.append($0) }) {
                    sightings.append(sighting)
                }
            }
            #expect(!sightings.isEmpty, "no sightings: \(result.error)")
            #expect(!readings.isEmpty, "no telemetry: \(result.error)")
            #expect(sightings.allSatisfy { $0.identity == ScanIntegrationTests.identity && $0.address == Self.address && $0.addressIsRandom })
            for reading in readings {
                #expect(reading.address == Self.address && reading.addressIsRandom)
                #expect(reading.batteryMillivolts == 2950)
                #expect(reading.temperature == 23.25)
                #expect(reading.source == .eddystoneTLM)
                #expect(reading.receiver == sightings.first?.receiver && reading.clock == .elapsed, "the sightings' receiver and clock")
            }
        }
    }
}
