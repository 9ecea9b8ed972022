import ArgumentParser
import BeaconMQTT
import Foundation
import HCI
import HCITransports
import Testing
@testable import BeaconCLI

/// Every command ends in `BeaconCtlRunner.execute`: an error that no command turned into a
/// `CommandFailure` must still leave with the status the README's table documents for its
/// kind, never with ArgumentParser's 1 (which the contract keeps for findings).
@Suite("Errors no command expects")
struct UnexpectedErrorTests {
    struct Unforeseen: Error, CustomStringConvertible {
        var description: String { "something nobody wrapped" }
    }

    static let cases: [(any Error & Sendable, Int32)] = [
        (HCITransportError(.closed, "hci0: the controller went away"), 3),
        (POSIXCallError("read", code: EIO), 3),
        (MQTTError.library("the broker connection failed"), 3),
        (CocoaError(.fileReadNoSuchFile), 2),
        (Unforeseen(), 2),
    ]

    @Test(arguments: 0..<cases.count)
    func leavesWithTheDocumentedStatus(index: Int) async {
        let (error, status) = Self.cases[index]
        let captured = CapturedOutput()
        let code = await Console.$current.withValue(captured.console()) {
            await BeaconCtlRunner.execute(ThrowingCommand(error: error))
        }
        #expect(code == status, "\(type(of: error)) left with \(code)")
        #expect(code != ExitStatus.findings.rawValue)
        #expect(captured.error.hasPrefix("beaconctl: error: "))
        #expect(captured.error.contains("\(error)"))
        #expect(captured.output.isEmpty)
    }

    @Test func everyCommandRunsThroughTheSameExit() async {
        // The runner parses, then hands every subcommand, whatever its type, to `execute`:
        // a parse of each subcommand's help reaches it without being run.
        for subcommand in BeaconCtl.configuration.subcommands {
            let name = subcommand.configuration.commandName ?? "\(subcommand)"
            let result = await runBeaconctl([name, "--help"])
            #expect(result.status == 0, "beaconctl \(name) --help left with \(result.status)")
        }
    }

    @Test func findingsAndCommandFailuresKeepTheirStatus() async {
        let captured = CapturedOutput()
        let findings = await Console.$current.withValue(captured.console()) {
            await BeaconCtlRunner.execute(ThrowingCommand(error: ExitStatus.findings.exitCode))
        }
        #expect(findings == 1)
        #expect(captured.error.isEmpty)
        let failure = await Console.$current.withValue(captured.console()) {
            await BeaconCtlRunner.execute(ThrowingCommand(error: CommandFailure(.controller, "hci0: gone")))
        }
        #expect(failure == 3)
        #expect(captured.error == "beaconctl: error: hci0: gone\n")
    }
}

/// A command whose run throws `error`.
private struct ThrowingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "throwing")
    var error: (any Error & Sendable)?

    init() {}
    init(error: any Error & Sendable) { self.error = error }

    // ArgumentParser decodes commands; this one is built by hand and never parsed.
    enum CodingKeys: CodingKey {}

    func run() async throws {
        if let error { throw error }
    }
}
