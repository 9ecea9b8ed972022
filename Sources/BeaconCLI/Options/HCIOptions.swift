import ArgumentParser
import BeaconFleet
import BeaconPlatform
import HCI
import HCITransports
import Logging

/// The options of every command that talks to a controller.
struct HCIOptions: ParsableArguments {
    static let environmentVariable = "BEACONCTL_HCI"
    static let defaultSpec = "hci0"

    @Option(
        name: .customLong("hci"),
        help: ArgumentHelp(
            "The controller: hci0, hci-user:0, tcp-client:HOST:PORT, serial:PATH[,BAUD] or virtual (default: $BEACONCTL_HCI, else hci0).",
            valueName: "spec"))
    var hci: String?

    @Option(help: ArgumentHelp("Write the HCI traffic to FILE as btsnoop (open it with btmon -r FILE or Wireshark).", valueName: "file"))
    var snoop: String?

    @Option(help: ArgumentHelp("Seconds to wait for the controller to answer a command.", valueName: "seconds"))
    var commandTimeout: Double = 2

    func validate() throws {
        if let hci {
            do {
                _ = try HCITransportSpec(parsing: hci)
            } catch {
                throw ValidationError("--hci: \(error.advisedMessage)")
            }
        }
        guard commandTimeout.isFinite, commandTimeout >= 0.1, commandTimeout <= 60 else {
            throw ValidationError("--command-timeout must be between 0.1 and 60 seconds; got \(commandTimeout).")
        }
        if let snoop, snoop.isEmpty {
            throw ValidationError("--snoop needs a file name.")
        }
    }

    /// The flags given that drive a controller, for a refusal beside a recording (`--input`).
    var givenFlags: [String] {
        [hci.map { _ in "--hci" }, snoop.map { _ in "--snoop" }].compactMap { $0 }
    }

    var timeout: Duration { SecondsFlag.duration(commandTimeout) ?? .seconds(2) }

    /// `--hci`, else `$BEACONCTL_HCI`, else `hci0`.
    func transportSpec(environment: [String: String]) throws(CommandFailure) -> HCITransportSpec {
        let text: String
        let origin: String
        if let hci {
            (text, origin) = (hci, "--hci")
        } else if let fromEnvironment = environment[Self.environmentVariable], !fromEnvironment.isEmpty {
            (text, origin) = (fromEnvironment, "$\(Self.environmentVariable)")
        } else {
            (text, origin) = (Self.defaultSpec, "the default")
        }
        return try Self.spec(parsing: text, origin: origin)
    }

    /// `text` as a spec; a bad one is a usage failure that names where it came from.
    static func spec(parsing text: String, origin: String) throws(CommandFailure) -> HCITransportSpec {
        do {
            return try HCITransportSpec(parsing: text)
        } catch {
            throw CommandFailure(.usageOrInput, "\(origin): \(error.advisedMessage)")
        }
    }

    /// `--hci` alone, for a command that does something else without it (`controllers`
    /// lists): `$BEACONCTL_HCI` and the default are not consulted.
    func namedSpec() throws(CommandFailure) -> HCITransportSpec? {
        guard let hci else { return nil }
        return try Self.spec(parsing: hci, origin: "--hci")
    }

    /// The capture `--snoop` asks for, opened now so that a bad path fails before the
    /// controller is touched.
    func openCapture() throws(CommandFailure) -> BTSnoopWriter? {
        guard let snoop else { return nil }
        do {
            return try BTSnoopWriter(path: snoop)
        } catch {
            throw CommandFailure(.usageOrInput, "--snoop \(snoop): \(error)")
        }
    }

    /// The controllers of this machine, which the use cases open (`SystemPlatform`).
    var platform: any ControllerPlatform { .system }

    /// How to reach `spec`: recording into `capture` when there is one, with `--command-timeout`.
    func connection(_ spec: HCITransportSpec, capture: BTSnoopWriter?) -> ControllerConnection {
        ControllerConnection(spec, platform: platform, capture: capture, commandTimeout: timeout)
    }

    /// Opens `spec` (recording into `capture`) and starts a host controller on it; a
    /// controller that cannot be reached is exit status 3.
    func openHost(_ spec: HCITransportSpec, capture: BTSnoopWriter?) async throws(CommandFailure) -> HostController {
        do {
            return try await connection(spec, capture: capture).openHost()
        } catch {
            throw CommandFailure(.controller, error.advisedMessage)
        }
    }

    /// Opens `--hci` (and the `--snoop` capture), scans while `body` runs, and stops and
    /// closes the scan after it, whether `body` returned or threw (`LiveScan.with`).
    func scanning<Value>(logger: Logger, _ body: (LiveScan) async throws -> Value) async throws -> Value {
        let spec = try transportSpec(environment: Console.current.environment)
        let capture = try openCapture()
        defer { capture?.close() }
        return try await scanning(spec, capture: capture, logger: logger, body)
    }

    /// Scans on `spec` (recording into `capture`) while `body` runs, then stops and closes
    /// the scan (`LiveScan.with`). `configure` adjusts the scan beyond the access mode and
    /// receiver name (family, timing). A controller that cannot be reached or refuses to
    /// scan is exit 3; what `body` throws passes through as it is.
    func scanning<Value>(
        _ spec: HCITransportSpec, capture: BTSnoopWriter?, logger: Logger,
        configure: (inout ScanConfiguration) -> Void = { _ in }, _ body: (LiveScan) async throws -> Value
    ) async throws -> Value {
        do {
            return try await LiveScan.with(connection(spec, capture: capture), logger: logger, configure: configure, body)
        } catch let error as LiveScanError {
            throw CommandFailure(.controller, error.description)
        }
    }

    /// Opens the sightings a command reads and runs `body` on them (`SightingSource.with`,
    /// which stops and closes a live scan after it): the recording `input` names when there
    /// is one, else a scan on `--hci` (recording into `capture`), configured by `configure`.
    /// An unreadable recording is a usage/input failure (exit 2); a controller that cannot
    /// be reached or refuses to scan is exit 3.
    /// `broker` is `input` opened as a broker's stream: its sightings are read as they come.
    func withSource<Value>(
        input: String?, broker: BrokerInput? = nil, capture: BTSnoopWriter?, logger: Logger,
        configure: (inout ScanConfiguration) -> Void = { _ in }, _ body: (SightingSource) async throws -> Value
    ) async throws -> Value {
        let origin: SightingSource.Origin
        if let broker {
            origin = .broker(broker.feed.sightings)
        } else if let input {
            origin = .recording(path: input)
        } else {
            origin = .controller(connection(try transportSpec(environment: Console.current.environment), capture: capture))
        }
        do {
            return try await SightingSource.with(origin, logger: logger, configure: configure, body)
        } catch SightingSourceError.controller(let failure) {
            throw CommandFailure(.controller, failure.description)
        } catch SightingSourceError.recording(let failure) {
            throw CommandFailure(.usageOrInput, failure.description)
        }
    }
}
