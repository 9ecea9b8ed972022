import ArgumentParser
import BeaconFleet
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
                throw ValidationError("--hci: \(error.message)")
            }
        }
        guard commandTimeout.isFinite, commandTimeout >= 0.1, commandTimeout <= 60 else {
            throw ValidationError("--command-timeout must be between 0.1 and 60 seconds; got \(commandTimeout).")
        }
        if let snoop, snoop.isEmpty {
            throw ValidationError("--snoop needs a file name.")
        }
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
        do {
            return try HCITransportSpec(parsing: text)
        } catch {
            throw CommandFailure(.usageOrInput, "\(origin): \(error.message)")
        }
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

    /// Opens `spec`, recording into `capture` when there is one. The capture outlives the
    /// connection, so that a restart after a dropped link goes on recording into it.
    static func open(_ spec: HCITransportSpec, capture: BTSnoopWriter?) async throws(HCITransportError) -> any HCITransport {
        let transport = try await ControllerTransports.open(spec)
        guard let capture else { return transport }
        return CaptureKeepingTransport(SnoopingTransport(wrapping: transport, writer: capture))
    }

    /// Opens `spec` (recording into `capture`) and starts a host controller on it with the
    /// `--command-timeout`; a controller that cannot be reached is exit status 3.
    func openHost(_ spec: HCITransportSpec, capture: BTSnoopWriter?) async throws(CommandFailure) -> HostController {
        let transport: any HCITransport
        do {
            transport = try await Self.open(spec, capture: capture)
        } catch {
            throw CommandFailure(.controller, error.message)
        }
        return HostController(transport: transport, defaultTimeout: timeout)
    }

    /// Opens `spec` and starts passive scanning on it; the caller stops the session and
    /// closes the host. `configure` adjusts the scan beyond the access mode and receiver name
    /// (family, timing). A controller that cannot be reached or refuses to scan is exit 3.
    func startScanning(
        _ spec: HCITransportSpec, capture: BTSnoopWriter?, logger: Logger,
        configure: (inout ScanConfiguration) -> Void = { _ in }
    ) async throws(CommandFailure) -> (host: HostController, session: ScanSession) {
        let host = try await openHost(spec, capture: capture)
        var configuration = ScanConfiguration(access: ControllerAccess(spec), receiver: spec.description)
        configure(&configuration)
        do {
            let session = try await BeaconScanner(host: host, configuration: configuration, logger: logger).start()
            return (host, session)
        } catch {
            await host.close()
            throw CommandFailure(.controller, error.description)
        }
    }
}

/// A snooping transport whose `close` leaves the capture file open: the command closes it
/// once, at the end.
final class CaptureKeepingTransport: HCITransport {
    private let snooping: SnoopingTransport

    init(_ snooping: SnoopingTransport) {
        self.snooping = snooping
    }

    var name: String { snooping.name }
    var incoming: AsyncThrowingStream<HCIPacket, any Error> { snooping.incoming }

    func send(_ packet: HCIPacket) async throws(HCITransportError) {
        try await snooping.send(packet)
    }

    func close() async {
        await snooping.wrapped.close()
    }
}
