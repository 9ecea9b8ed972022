import ArgumentParser
import BeaconFleet
import HCITransports

/// `provision --verify-hci SPEC`: the second controller, which listens for the beacons the
/// first one advertises.
struct ListeningControllerOption: ParsableArguments {
    @Option(
        name: .customLong("verify-hci"),
        help: ArgumentHelp("The controller that listens: a second one, since a controller does not hear its own advertising.", valueName: "spec"))
    var verifyHCI: String?

    /// Required without --hardware, a valid spec, and not the controller `hci` (--hci) names.
    func check(advertisingOn hci: String?) throws {
        guard let verifyHCI else {
            throw ValidationError("Missing expected argument '--verify-hci <spec>' (or pass --hardware to write battery beacons).")
        }
        let listening: HCITransportSpec
        do {
            listening = try HCITransportSpec(parsing: verifyHCI)
        } catch {
            throw ValidationError("--verify-hci: \(error.advisedMessage)")
        }
        if let hci, let advertising = try? HCITransportSpec(parsing: hci), advertising.isSameController(as: listening) {
            throw ValidationError("--hci and --verify-hci name the same controller (\(listening)); a controller does not hear its own advertising: listen with a second one.")
        }
    }

    /// The listening controller's spec (checked by `check` already).
    func spec() throws(CommandFailure) -> HCITransportSpec {
        guard let verifyHCI else { throw CommandFailure(.usageOrInput, "--verify-hci is required without --hardware") }
        return try HCIOptions.spec(parsing: verifyHCI, origin: "--verify-hci")
    }
}
