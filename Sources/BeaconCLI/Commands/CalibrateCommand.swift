import ArgumentParser
import BeaconCore
import BeaconFleet
import FleetManifest
import HCI
import HCITransports
import Logging

/// `beaconctl calibrate BEACON`: measures a beacon's RSSI at 1 m and, with --write,
/// records it as its `measured_power` in the manifest.
struct CalibrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Measure a beacon's RSSI at 1 m (its measured power) and optionally write it into the manifest.",
        discussion: """
            Hold the scanner 1 m from the beacon, in the open, both still. RSSI samples are \
            collected for --seconds (default 20); the top and bottom 10 % are dropped and the \
            rest averaged. The value, the sample count, the spread and a 95 % confidence \
            interval are printed, with a warning when there are too few samples or the spread \
            is too wide. The run is refused when more than one device sends the beacon's \
            identity. --write changes that one number in the manifest (or adds one \
            `measured_power:` line to the beacon), keeping comments and layout, atomically. \
            --advertise-hci advertises the beacon from a second controller of this host \
            meanwhile. Details in docs/calibration.md.
            Exit codes: 0 calibrated; 1 the manifest has errors, or no value (not heard, \
            several transmitters, interrupted by SIGINT or SIGTERM: nothing is written then); \
            2 a usage error or an unreadable --input; 3 the controller failed.
            """)

    @OptionGroup var globals: GlobalOptions
    @OptionGroup(title: "Controller") var controller: HCIOptions

    @Argument(help: ArgumentHelp("The beacon's id in the manifest.", valueName: "beacon"))
    var beacon: String

    @Option(help: ArgumentHelp("The fleet manifest (files or folders) that defines the beacon.", valueName: "path"))
    var manifest: [String] = []

    @Option(help: ArgumentHelp("How long to collect samples.", valueName: "seconds"))
    var seconds: Double = 20

    @Flag(help: "Write the value into the manifest as the beacon's measured_power.")
    var write = false

    @Option(help: ArgumentHelp("Advertise the beacon from this controller while scanning on --hci.", valueName: "spec"))
    var advertiseHci: String?

    @Option(help: ArgumentHelp("Calibrate from a recording instead: JSON lines or a btsnoop, pcap or pcapng capture ('-' for standard input).", valueName: "file"))
    var input: String?

    func validate() throws {
        if manifest.isEmpty { throw ValidationError("--manifest is required: the beacon is named by its id there.") }
        guard seconds.isFinite, seconds > 0, seconds <= 3600 else {
            throw ValidationError("--seconds must be between 0 and 3600; got \(seconds).")
        }
        if let advertiseHci {
            do {
                _ = try HCITransportSpec(parsing: advertiseHci)
            } catch {
                throw ValidationError("--advertise-hci \(advertiseHci): \(error.message)")
            }
            if input != nil { throw ValidationError("--advertise-hci needs a controller to scan on, not --input.") }
        }
        if input != nil, controller.hci != nil || controller.snoop != nil {
            throw ValidationError("--input calibrates from a recording; --hci and --snoop drive a controller: pass one or the other.")
        }
    }

    func run() async throws {
        let console = Console.current
        let logger = globals.makeLogger()
        // With --write, what is read now is what the value is written into: a manifest
        // edited during the measurement is refused, not overwritten.
        let loaded = ManifestLoader.load(paths: manifest, keepingSnapshots: write)
        try reportBlockingDiagnostics(loaded)
        guard let target = loaded.fleet.beacons.first(where: { $0.id == beacon }) else {
            throw CommandFailure(.usageOrInput, "\(manifest.joined(separator: ", ")) has no beacon `\(beacon)`; `beaconctl fleet validate` lists them")
        }
        let sampler: CalibrationSampler
        do {
            if let input {
                sampler = try await sampleRecording(input, identity: target.identity, logger: logger)
            } else {
                sampler = try await sampleController(target, logger: logger)
            }
        } catch let interruption as TerminationSignals.Interrupted {
            // Never a value from a run cut short: its samples are a fraction of what was asked.
            throw CommandFailure(.findings, "\(beacon): calibration \(interruption) before its \(ScanTable.decimal(seconds, places: 0)) s were up; nothing was \(write ? "written" : "measured"): run it again and let it finish")
        }
        let estimate: CalibrationEstimate
        do {
            estimate = try sampler.estimate(afterSeconds: seconds)
        } catch {
            throw CommandFailure(.findings, "\(beacon): \(error)")
        }
        for line in CalibrationReport.lines(beacon: target, estimate: estimate) { console.line(line) }
        for warning in estimate.warnings { logger.warning("\(beacon): \(warning)") }
        guard write else { return }
        do {
            try ManifestValueEdit.writeMeasuredPower(estimate.measuredPower, beaconID: beacon, in: loaded)
        } catch {
            throw CommandFailure(.usageOrInput, "\(error)")
        }
        console.line("wrote measured_power: \(estimate.measuredPower) for \(beacon) in \(target.location.file)")
    }

    /// The samples of the first `seconds` of a recording (on its own clock).
    private func sampleRecording(_ input: String, identity: BeaconIdentity, logger: Logger) async throws -> CalibrationSampler {
        let limit = seconds
        return try await TerminationSignals.cancellingOnInterrupt {
            var sampler = CalibrationSampler(identity: identity)
            var first: Double?
            try await RecordedSightings.read(input, logger: logger) { sighting in
                let start = first ?? sighting.time
                first = start
                guard sighting.time <= start + limit else { return false }
                sampler.add(sighting)
                return true
            }
            return sampler
        }
    }

    /// Scans for `seconds` on `--hci`, advertising the beacon from `--advertise-hci` meanwhile.
    private func sampleController(_ target: ResolvedBeacon, logger: Logger) async throws -> CalibrationSampler {
        let console = Console.current
        let spec = try controller.transportSpec(environment: console.environment)
        let advertising = try startAdvertising(target, scanningOn: spec, logger: logger)
        defer { advertising?.cancel() }
        let capture = try controller.openCapture()
        defer { capture?.close() }
        let session = try await controller.startScanning(spec, capture: capture, logger: logger)
        console.errorLine("calibrating \(target.id) (\(target.identity)) for \(ScanTable.decimal(seconds, places: 0)) s: hold the scanner 1 m from it")
        let identity = target.identity
        let limit = seconds
        var failure: (any Error)?
        var sampler = CalibrationSampler(identity: identity)
        do {
            sampler = try await TerminationSignals.cancellingOnInterrupt {
                try await CalibrationSampler.collect(identity, from: session, for: limit)
            }
        } catch let interruption as TerminationSignals.Interrupted {
            failure = interruption
        } catch {
            failure = CommandFailure(.controller, "\(error)")
        }
        await session.close()
        if let advertising {
            advertising.cancel()
            _ = await advertising.value
        }
        if let failure { throw failure }
        return sampler
    }

    /// With --advertise-hci, the task advertising the beacon (cancel it to stop).
    private func startAdvertising(_ target: ResolvedBeacon, scanningOn spec: HCITransportSpec, logger: Logger) throws -> Task<Void, Never>? {
        guard let advertiseHci else { return nil }
        let advertiserSpec = try HCITransportSpec(parsing: advertiseHci)
        guard advertiserSpec != spec else {
            throw CommandFailure(.usageOrInput, "--advertise-hci and --hci name the same controller (\(spec)); a controller does not hear its own advertising: use two")
        }
        let request: AdvertisingRequest
        do {
            request = try AdvertisingRequest(target)
        } catch {
            throw CommandFailure(.usageOrInput, "\(error)")
        }
        let advertiser = BeaconAdvertiser(
            controller: advertiserSpec, configuration: AdvertiserConfiguration(requests: [request]), logger: logger)
        return Task {
            do {
                _ = try await advertiser.run { event in
                    if case .warning(let text) = event { logger.warning("\(advertiserSpec): \(text)") }
                }
            } catch {
                logger.error("advertising on \(advertiserSpec) failed: \(error); no samples will come from it")
            }
        }
    }
}
