import ArgumentParser
import BeaconCore
import BeaconFleet
import FleetManifest
import HCI
import HCITransports
import Logging

/// `beaconctl calibrate BEACON`: measures a beacon's RSSI at 1 m and, with --write,
/// records it as its `measured_power` in the manifest; with --walk, fits a receiver profile
/// (the room's path-loss exponent and the receiver's offset) from several known distances.
struct CalibrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Measure a beacon's RSSI at 1 m (its measured power), or walk a room to fit a receiver profile.",
        discussion: """
            Hold the scanner 1 m from the beacon, in the open, both still. RSSI samples are \
            collected for --seconds (default 20); the top and bottom 10 % are dropped and the \
            rest averaged. The value, the sample count, the spread and a 95 % confidence \
            interval are printed, with a warning when there are too few samples or the spread \
            is too wide. The run is refused when more than one device sends the beacon's \
            identity. --write changes that one number in the manifest (or adds one \
            `measured_power:` line to the beacon), keeping comments and layout, atomically. \
            --advertise-hci advertises the beacon from a second controller of this host \
            meanwhile.
            --walk 0.5,1,2,3,5 calibrates the place instead: the beacon is measured at each \
            distance in turn (live: press Enter at each spot, or send one line per spot on \
            standard input; from recordings: one --input per distance, in order), the \
            path-loss exponent and this receiver's RSSI offset are fitted, the fit's \
            residuals are printed, and the profile is saved (--profile; by default where \
            `scan` and `monitor --range` look for it). Details in docs/calibration.md.
            Exit codes: 0 calibrated; 1 the manifest has errors, or no value (not heard, \
            several transmitters, a walk whose fit fails, interrupted by SIGINT or SIGTERM: \
            nothing is written then); \
            2 a usage error or an unreadable --input; 3 the controller failed.
            """)

    @OptionGroup var globals: GlobalOptions
    @OptionGroup(title: "Controller") var controller: HCIOptions

    @Argument(help: ArgumentHelp("The beacon's id in the manifest.", valueName: "beacon"))
    var beacon: String

    @Option(help: ArgumentHelp("The fleet manifest (files or folders) that defines the beacon.", valueName: "path"))
    var manifest: [String] = []

    @Option(name: .customLong("seconds"), help: ArgumentHelp("How long to collect samples (at each spot of a walk). Default 20; a walk's recordings are used whole.", valueName: "seconds"))
    var secondsOption: Double?

    static let defaultSeconds = 20.0
    var seconds: Double { secondsOption ?? Self.defaultSeconds }

    @Flag(help: "Write the value into the manifest as the beacon's measured_power.")
    var write = false

    @Option(help: ArgumentHelp("Advertise the beacon from this controller while scanning on --hci.", valueName: "spec"))
    var advertiseHci: String?

    @Option(name: .customLong("input"), help: ArgumentHelp("Calibrate from a recording instead: JSON lines or a btsnoop, pcap or pcapng capture ('-' for standard input). With --walk, one per distance, in order.", valueName: "file"))
    var inputs: [String] = []

    var input: String? { inputs.first }

    @Option(
        help: ArgumentHelp("Calibrate the place: measure at these distances, metres, comma-separated (e.g. 0.5,1,2,3,5) and fit a receiver profile.", valueName: "m,m,..."),
        transform: { text in text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) ?? .nan } })
    var walk: [Double]?

    @Option(help: ArgumentHelp("With --walk: where the receiver profile is written. Default: $XDG_CONFIG_HOME/beaconctl/ranging-profile.json (~/.config/…).", valueName: "file"))
    var profile: String?

    @Option(help: ArgumentHelp("With --walk: the place, in your words, kept in the profile.", valueName: "name"))
    var place: String = ""

    func validate() throws {
        if manifest.isEmpty { throw ValidationError("--manifest is required: the beacon is named by its id there.") }
        guard seconds.isFinite, seconds > 0, seconds <= 3600 else {
            throw ValidationError("--seconds must be between 0 and 3600; got \(seconds).")
        }
        try validateWalk()
        if let advertiseHci {
            do {
                _ = try HCITransportSpec(parsing: advertiseHci)
            } catch {
                throw ValidationError("--advertise-hci \(advertiseHci): \(error.advisedMessage)")
            }
            if input != nil { throw ValidationError("--advertise-hci needs a controller to scan on, not --input.") }
        }
        if !inputs.isEmpty, controller.hci != nil || controller.snoop != nil {
            throw ValidationError("--input calibrates from a recording; --hci and --snoop drive a controller: pass one or the other.")
        }
    }

    func run() async throws {
        try UnexpectedErrorProbe.reached("calibrate")
        let console = Console.current
        let logger = globals.makeLogger()
        // With --write, what is read now is what the value is written into: a manifest
        // edited during the measurement is refused, not overwritten.
        let loaded = ManifestLoader.load(paths: manifest, keepingSnapshots: write)
        try reportBlockingDiagnostics(loaded)
        guard let target = loaded.fleet.beacons.first(where: { $0.id == beacon }) else {
            throw CommandFailure(.usageOrInput, "\(manifest.joined(separator: ", ")) has no beacon `\(beacon)`; `beaconctl fleet validate` lists them")
        }
        if let walk {
            try await runWalk(walk, target: target, logger: logger)
            return
        }
        let sampler: CalibrationSampler
        do {
            if let input {
                sampler = try await sampleRecording(input, identity: target.identity, limit: seconds, logger: logger)
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

    /// The samples of the first `limit` seconds of a recording, on its receivers' one clock
    /// (`CalibrationSampler.collect(_:fromRecording:for:logger:)`).
    func sampleRecording(_ input: String, identity: BeaconIdentity, limit: Double, logger: Logger) async throws -> CalibrationSampler {
        return try await TerminationSignals.cancellingOnInterrupt {
            do {
                return try await CalibrationSampler.collect(identity, fromRecording: input, for: limit, logger: logger)
            } catch let error as SightingStreamError {
                throw CommandFailure(.usageOrInput, error.description)
            }
        }
    }

    /// Scans for `seconds` on `--hci`, advertising the beacon from `--advertise-hci` meanwhile.
    private func sampleController(_ target: ResolvedBeacon, logger: Logger) async throws -> CalibrationSampler {
        let console = Console.current
        let identity = target.identity
        let limit = seconds
        return try await whileAdvertising(target, logger: logger) { spec, capture in
            let (sampler, failure) = try await controller.scanning(spec, capture: capture, logger: logger) { session in
                console.errorLine("calibrating \(target.id) (\(target.identity)) for \(ScanTable.decimal(limit, places: 0)) s: hold the scanner 1 m from it")
                do {
                    let sampler = try await TerminationSignals.cancellingOnInterrupt {
                        try await CalibrationSampler.collect(identity, from: session, for: limit)
                    }
                    return (sampler, nil as (any Error)?)
                } catch let interruption as TerminationSignals.Interrupted {
                    return (CalibrationSampler(identity: identity), interruption)
                } catch {
                    return (CalibrationSampler(identity: identity), CommandFailure(.controller, ExitStatus.message(for: error)))
                }
            }
            if let failure { throw failure }
            return sampler
        }
    }

    /// Runs `body` with `--hci`'s spec and its capture while the beacon is advertised from
    /// `--advertise-hci` (when given); the advertiser has stopped advertising by the time this
    /// returns, whatever `body` did.
    func whileAdvertising<Value>(
        _ target: ResolvedBeacon, logger: Logger, _ body: (HCITransportSpec, BTSnoopWriter?) async throws -> Value
    ) async throws -> Value {
        let spec = try controller.transportSpec(environment: Console.current.environment)
        let advertising = try startAdvertising(target, scanningOn: spec, logger: logger)
        defer { advertising?.cancel() }
        let capture = try controller.openCapture()
        defer { capture?.close() }
        let outcome: Result<Value, any Error>
        do {
            outcome = .success(try await body(spec, capture))
        } catch {
            outcome = .failure(error)
        }
        if let advertising {
            advertising.cancel()
            _ = await advertising.value
        }
        return try outcome.get()
    }

    /// With --advertise-hci, the task advertising the beacon (cancel it to stop).
    func startAdvertising(_ target: ResolvedBeacon, scanningOn spec: HCITransportSpec, logger: Logger) throws -> Task<Void, Never>? {
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
            connection: controller.connection(advertiserSpec, capture: nil), configuration: AdvertiserConfiguration(requests: [request]), logger: logger)
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
