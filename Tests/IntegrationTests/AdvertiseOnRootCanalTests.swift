import BeaconCore
import Foundation
import Glibc
import HCI
import Testing

/// `beaconctl advertise` as a user runs it, against RootCanal: a second controller on the
/// same air, driven by this project's host stack, must hear every beacon byte for byte,
/// and nothing once beaconctl was stopped with SIGTERM.
@Suite("advertise on RootCanal", .requiresRootCanal, .timeLimit(.minutes(2)))
struct AdvertiseOnRootCanalTests {
    static let uuid = "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3"

    /// How long the scanner listens for the beacons after beaconctl exited: several times
    /// their effective interval, so that one still on the air would be heard. A longer
    /// window (a slow machine) only listens longer; it cannot make the test fail.
    static let silence: Duration = .milliseconds(1200)

    @Test("one beacon from flags: heard with its exact 30 bytes from the address it reported; silent after SIGTERM")
    func oneBeacon() async throws {
        try await withRootCanal { rootCanal in
            let scanner = try await AirScanner.start(port: rootCanal.hciPort)
            let advertiser = try BeaconctlProcess([
                "advertise", "--hci", rootCanal.hciTransportSpec, "--uuid", Self.uuid, "--major", "7", "--minor", "42",
                "--format", "json",
            ])
            let started = try await StartedEvent(advertiser)
            #expect(started.beacons.count == 1)
            let beacon = try #require(started.beacons.first)
            #expect(beacon.identity == BeaconIdentity(uuid: try ProximityUUID(parsing: Self.uuid), major: 7, minor: 42))
            // Auto measured power: the TX power the set reported − 41 dB.
            #expect(Int(beacon.measuredPower) == Int(beacon.txPower) - 41)

            let missing = await scanner.waitToHear([beacon.payload])
            #expect(missing.isEmpty, "the scanner never heard the beacon; beaconctl said: \(advertiser.standardError)")
            let sighting = try #require(scanner.all.first { $0.data == beacon.payload })
            #expect(sighting.data.count == 30)
            #expect(sighting.eventType == HCI.LEAdvertisingReport.EventType.advNonconnInd)
            #expect(sighting.address == beacon.address)
            #expect(sighting.addressType == .random)
            #expect(beacon.address.isStaticRandom)

            try await stopAndExpectSilence(advertiser, scanner: scanner, payloads: [beacon.payload])
            await scanner.stop()
        }
    }

    @Test("16 beacons from a manifest: one advertising set each, every one heard exactly; silent after SIGTERM")
    func sixteenBeaconsFromManifest() async throws {
        try await withRootCanal { rootCanal in
            let folder = try TemporaryFolder()
            let manifest = try folder.write("fleet.yaml", Self.manifest(beacons: 16, host: "pi-test"))
            let capture = folder.url.appendingPathComponent("advertise.snoop").path
            let scanner = try await AirScanner.start(port: rootCanal.hciPort)
            let advertiser = try BeaconctlProcess([
                "advertise", "--hci", rootCanal.hciTransportSpec, "--manifest", manifest, "--host", "pi-test",
                "--format", "json", "--snoop", capture,
            ])
            let started = try await StartedEvent(advertiser)
            #expect(started.family == "extended")
            #expect(started.beacons.map(\.id) == (1...16).map { "beacon-\($0)" })
            #expect(started.beacons.map(\.handle) == (0..<16).map { Optional($0) })
            #expect(Set(started.beacons.map(\.address)).count == 16)

            let payloads = Set(started.beacons.map(\.payload))
            let missing = await scanner.waitToHear(payloads)
            #expect(missing.isEmpty, "not heard: \(missing.count) of 16; beaconctl said: \(advertiser.standardError)")
            for beacon in started.beacons {
                let heardFrom = Set(scanner.all.filter { $0.data == beacon.payload }.map(\.address))
                #expect(heardFrom == [beacon.address], "\(beacon.id ?? "?") heard from \(heardFrom)")
            }

            try await stopAndExpectSilence(advertiser, scanner: scanner, payloads: payloads)
            await scanner.stop()

            // The capture shows the stop sequence went out and RootCanal accepted it: every set
            // disabled (Num_Sets 0), then all sets removed, before the link closed.
            var reader = try BTSnoopReader(contentsOf: capture)
            let records = try reader.readAll()
            let commands = records.filter { $0.direction == .hostToController }.compactMap { try? HCICommandPacket(packet: $0.packet) }
            #expect(Array(commands.suffix(2)) == [
                try HCICommandPacket(LESetExtendedAdvertisingEnable.disableAll), try HCICommandPacket(LEClearAdvertisingSets()),
            ])
            let answers = records.filter { $0.direction == .controllerToHost }.compactMap { record -> HCIEvent.CommandComplete? in
                if case .commandComplete(let complete)? = try? HCIEvent(packet: record.packet) { return complete }
                return nil
            }
            #expect(Array(answers.suffix(2).map(\.opcode)) == [.leSetExtendedAdvertisingEnable, .leClearAdvertisingSets])
            #expect(answers.suffix(2).allSatisfy { $0.status == .success })
        }
    }

    @Test("legacy family: three beacons rotate on one advertisement and all are heard")
    func legacyRotation() async throws {
        try await withRootCanal { rootCanal in
            let folder = try TemporaryFolder()
            let manifest = try folder.write("fleet.yaml", Self.manifest(beacons: 3, host: "pi-test"))
            let scanner = try await AirScanner.start(port: rootCanal.hciPort)
            let advertiser = try BeaconctlProcess([
                "advertise", "--hci", rootCanal.hciTransportSpec, "--manifest", manifest, "--all", "--family", "legacy",
                "--format", "json",
            ])
            let started = try await StartedEvent(advertiser)
            #expect(started.family == "legacy")
            #expect(started.effectiveIntervalMs == 300)
            // Legacy advertising reads the controller's advertising power (RootCanal: −10 dBm).
            #expect(started.beacons.allSatisfy { $0.txPower == -10 && $0.measuredPower == -51 })

            let payloads = Set(started.beacons.map(\.payload))
            let missing = await scanner.waitToHear(payloads)
            #expect(missing.isEmpty, "not heard: \(missing.count) of 3; beaconctl said: \(advertiser.standardError)")

            try await stopAndExpectSilence(advertiser, scanner: scanner, payloads: payloads)
            await scanner.stop()
        }
    }

    @Test("controllers --hci shows what RootCanal reports")
    func controllersReport() async throws {
        try await withRootCanal { rootCanal in
            let process = try BeaconctlProcess(["controllers", "--hci", rootCanal.hciTransportSpec])
            #expect(await process.waitForExit() == 0, "\(process.standardError)")
            let output = process.standardOutput
            for line in [
                "Controller \(rootCanal.hciTransportSpec)", "  Bluetooth version     5.3", "  Manufacturer          Google (0x00E0)",
                "  Extended advertising  yes", "  Advertising sets      16 (beacons on the air at once)",
                "  Max advertising data  512 bytes",
            ] {
                #expect(output.contains(line + "\n"), "missing \(line) in:\n\(output)")
            }
        }
    }

    /// SIGTERM, a clean exit (0) with the stop reported, then no advertisement of `payloads`
    /// for `silence` after `grace`.
    private func stopAndExpectSilence(
        _ advertiser: BeaconctlProcess, scanner: AirScanner, payloads: Set<[UInt8]>
    ) async throws {
        advertiser.signal(SIGTERM)
        let status = await advertiser.waitForExit()
        #expect(status == 0, "beaconctl did not exit 0 on SIGTERM: \(String(describing: status)); errors: \(advertiser.standardError)")
        let stopped = advertiser.outputLines.last.flatMap(jsonObject)
        #expect(stopped?["event"] as? String == "stopped")
        #expect(stopped?["signal"] as? String == "SIGTERM")

        // beaconctl exited after the controller confirmed the stop: whatever the scanner hears
        // after the barrier was put on the air after that, whenever it is delivered.
        let stoppedAt = try await scanner.barrier()
        // RootCanal is a real process whose air runs on its own wall clock, which no test
        // clock can move: "nothing advertised" can only be heard over real time, here twelve
        // of the beacons' 100 ms intervals, bounded by the barriers on either side.
        try await Task.sleep(for: Self.silence)
        let listenedUntil = try await scanner.barrier()
        let late = scanner.all[stoppedAt..<listenedUntil].filter { payloads.contains($0.data) }
        #expect(late.isEmpty, "\(late.count) advertisements after beaconctl stopped")
    }

    /// A manifest of `beacons` beacons with ids beacon-1…, minors 1…, all on `host`.
    static func manifest(beacons: Int, host: String) -> String {
        var text = """
            version: 1
            fleet: integration
            uuid: \(uuid)
            venues:
              - id: lab
                major: 9
                host: \(host)
                beacons:

            """
        for index in 1...beacons {
            text += "      - {id: beacon-\(index), minor: \(index)}\n"
        }
        return text
    }
}

/// The `started` line of `advertise --format json`.
struct StartedEvent {
    struct Beacon {
        let id: String?
        let identity: BeaconIdentity
        let txPower: Int8
        let measuredPower: Int8
        let address: BluetoothAddress
        let handle: Int?

        /// The 30 bytes the beacon must put on the air.
        var payload: [UInt8] { IBeaconAdvertisement(identity: identity, measuredPower: measuredPower).advertisingData }
    }

    let family: String
    let effectiveIntervalMs: Double?
    let beacons: [Beacon]

    init(_ process: BeaconctlProcess) async throws {
        let line = try await process.waitForLine("a started event") { $0.contains("\"event\":\"started\"") }
        guard let object = jsonObject(line), let family = object["family"] as? String,
            let beacons = object["beacons"] as? [[String: Any]]
        else { throw BeaconctlProcessError("not a started event: \(line)") }
        self.family = family
        effectiveIntervalMs = object["effectiveIntervalMs"] as? Double
        self.beacons = try beacons.map { entry in
            guard let uuidText = entry["uuid"] as? String, let major = entry["major"] as? Int, let minor = entry["minor"] as? Int,
                let txPower = entry["txPowerDbm"] as? Int, let measured = entry["measuredPowerDbm"] as? Int,
                let addressText = entry["address"] as? String, let address = BluetoothAddress(addressText),
                let major16 = UInt16(exactly: major), let minor16 = UInt16(exactly: minor),
                let txPower8 = Int8(exactly: txPower), let measured8 = Int8(exactly: measured)
            else { throw BeaconctlProcessError("a beacon of the started event is incomplete: \(entry)") }
            return Beacon(
                id: entry["id"] as? String,
                identity: BeaconIdentity(uuid: try ProximityUUID(parsing: uuidText), major: major16, minor: minor16),
                txPower: txPower8, measuredPower: measured8, address: address, handle: entry["handle"] as? Int)
        }
    }
}

/// One line of JSON as a dictionary; nil when it is not a JSON object.
func jsonObject(_ line: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
}

/// A folder under the system's temporary directory, removed when the value goes away.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("beaconctl-advertise-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes `text` to `name` in the folder; returns its path.
    func write(_ name: String, _ text: String) throws -> String {
        let file = url.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file.path
    }
}
