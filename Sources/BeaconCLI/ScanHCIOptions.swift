import ArgumentParser
import BeaconFleet
import HCI
import Logging

/// How `scan` reaches its controller: `--hci`, `--snoop`, `--command-timeout`.
///
/// The same flags, with the same meaning, as every command that drives a controller.
struct ScanHCIOptions: ParsableArguments {
    @Option(
        name: .customLong("hci"), help: ArgumentHelp(
            "The controller: hci0, hci-socket:0, hci-user:0, tcp-client:HOST:PORT, serial:PATH[,BAUD] or virtual (default: $BEACONCTL_HCI, else hci0).",
            valueName: "spec"))
    var hci: String?

    @Option(
        name: .customLong("snoop"),
        help: ArgumentHelp("Record the HCI traffic to this file as btsnoop (btmon -r and Wireshark read it).", valueName: "file"))
    var snoop: String?

    @Option(
        name: .customLong("command-timeout"),
        help: ArgumentHelp("Seconds to wait for the controller's answer to a command.", valueName: "seconds"))
    var commandTimeout: Double = 2

    /// The environment variable that names the default controller.
    static let environmentVariable = "BEACONCTL_HCI"

    func validate() throws {
        guard commandTimeout.isFinite, commandTimeout > 0, commandTimeout <= 120 else {
            throw ValidationError("--command-timeout must be between 0 and 120 seconds; got \(commandTimeout).")
        }
        if let hci {
            _ = try Self.parse(hci, origin: "--hci")
        }
    }

    /// The transport spec from `--hci`, else `$BEACONCTL_HCI`, else `hci0`.
    func spec(environment: [String: String]) throws -> HCITransportSpec {
        if let hci { return try Self.parse(hci, origin: "--hci") }
        if let fromEnvironment = environment[Self.environmentVariable], !fromEnvironment.isEmpty {
            return try Self.parse(fromEnvironment, origin: "$\(Self.environmentVariable)")
        }
        return .kernelSocket(device: 0)
    }

    /// Opens the controller (recording it with `--snoop`) and puts a host on it.
    func openHost(_ spec: HCITransportSpec, logger: Logger) async throws -> HostController {
        var transport: any HCITransport
        do {
            transport = try await ControllerTransports.open(spec)
        } catch {
            throw CommandFailure(.controller, error.message)
        }
        if let snoop {
            do {
                transport = try SnoopingTransport(wrapping: transport, path: snoop)
            } catch {
                await transport.close()
                throw CommandFailure(.usageOrInput, "\(error)")
            }
            logger.info("recording HCI traffic", metadata: ["file": "\(snoop)"])
        }
        let milliseconds = Int64((commandTimeout * 1000).rounded())
        return HostController(transport: transport, defaultTimeout: .milliseconds(milliseconds))
    }

    private static func parse(_ text: String, origin: String) throws -> HCITransportSpec {
        do {
            return try HCITransportSpec(parsing: text)
        } catch {
            throw ValidationError("\(origin) \(text): \(error.message)")
        }
    }
}
