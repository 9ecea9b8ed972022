import BenchmarkSupport
import BeaconCore
import BeaconFleet
import BeaconPlatform
import BeaconProfiles
import FleetManifest
import HCI
import HCITransports
import LECentral
import Logging

/// The two measurements of one benchmark run, on the same air.
enum BenchmarkRuns {
    static let factoryPassword = BeaconPassword("0000000000000000")
    static let quiet = Logger(label: "provision-benchmark") { _ in SwiftLogNoOpLogHandler() }

    /// A controller of its own on the air (a new TCP connection is a new RootCanal controller).
    static func host(on air: AirEndpoint) async throws -> HostController {
        let transport = try await TCPClientTransport.connect(host: "127.0.0.1", port: air.hciPort)
        // RootCanal on a loaded machine: a safety deadline, not an expectation.
        return HostController(transport: transport, defaultTimeout: .seconds(60))
    }

    /// The baseline: what RootCanal and the central take to set up and end one connection
    /// per beacon, with nothing else: no discovery scan, no GATT, no writes, no verification.
    /// Seconds per beacon.
    static func connectionsAlone(on air: AirEndpoint) async throws -> [Double] {
        let host = try await host(on: air)
        let central = Central(host: host)
        try await central.start()
        var seconds: [Double] = []
        for address in air.addresses {
            let start = ContinuousClock.now
            let connection = try await central.connect(to: address, type: .random, timeout: .seconds(30))
            try await connection.disconnect()
            seconds.append(Self.seconds(ContinuousClock.now - start))
        }
        await host.close()
        return seconds
    }

    /// One manifest beacon per KBeacon, each pinned by its `mac:`: six fields to write.
    static func manifest(for air: AirEndpoint, intervalMilliseconds: Int) -> String {
        var lines = [
            "version: 1", "fleet: provisioning-benchmark", "uuid: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "defaults:",
            "  interval_ms: \(intervalMilliseconds)", "  tx_power: -4", "venues:", "  - id: hall", "    major: 21", "    beacons:",
        ]
        for (index, address) in air.addresses.enumerated() {
            lines.append("      - {id: beacon-\(index + 1), minor: \(index + 1), measured_power: -60, mac: \"\(address)\"}")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `provision --hardware` as the command runs it (the use case, on a controller of its
    /// own), its steps timed as the provisioner announces them.
    static func provisionAll(
        on air: AirEndpoint, options: ProvisionBenchmarkOptions
    ) async throws -> (HardwareProvisioningResult, PhaseTimeline.Breakdown) {
        let path = "\(air.folder)/fleet.yaml"
        guard writeText(manifest(for: air, intervalMilliseconds: options.intervalMilliseconds), to: path) else {
            throw BenchmarkFailure("cannot write \(path)")
        }
        let loaded = ManifestLoader.load(paths: [path])
        guard loaded.errorCount == 0 else {
            throw BenchmarkFailure("the benchmark's manifest is invalid: \(loaded.diagnostics.map { "\($0)" }.joined(separator: "; "))")
        }
        let request = HardwareProvisioningRequest(
            fleet: loaded.fleet, password: factoryPassword,
            discoveryWindow: .milliseconds(Int((options.discoverySeconds * 1000).rounded())), connectTimeout: .seconds(30),
            policy: VerificationPolicy(requiredSightings: 3, timeout: .seconds(60)))
        let host = try await host(on: air)
        let timeline = PhaseTimeline()
        let provisioner = HardwareProvisioner(
            request: request, host: host, platform: .system, scanConfiguration: ScanConfiguration(access: .exclusive), logger: quiet,
            recordAddress: { _, _ in nil }, onPhase: { timeline.note(.phase($0, $1)) })
        let result: HardwareProvisioningResult
        do {
            result = try await provisioner.run { timeline.note($0) }
        } catch {
            await host.close()
            throw BenchmarkFailure("provisioning could not run: \(error)")
        }
        timeline.note(.end)
        await host.close()
        return (result, timeline.breakdown())
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
