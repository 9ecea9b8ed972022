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

    /// Each command as a user runs it, arguments that pass parsing and validation, and the
    /// name it gives `UnexpectedErrorProbe` where its work begins.
    static let commands: [(name: String, arguments: [String])] = [
        ("fleet validate", ["fleet", "validate", "m.yaml"]),
        ("fleet plan", ["fleet", "plan", "--venue", "north", "--zones", "entrance"]),
        ("fleet export", ["fleet", "export", "m.yaml"]),
        ("fleet import", ["fleet", "import", "beacons.csv"]),
        ("fleet batteries", ["fleet", "batteries", "m.yaml", "--state", "watch.state"]),
        ("advertise", ["advertise", "--manifest", "m.yaml", "--all", "--hci", "virtual"]),
        ("scan", ["scan", "--input", "sightings.jsonl"]),
        ("verify", ["verify", "m.yaml", "--input", "sightings.jsonl"]),
        ("verify --watch", ["verify", "m.yaml", "--watch", "--input", "sightings.jsonl"]),
        ("provision", ["provision", "m.yaml", "--hci", "virtual", "--verify-hci", "virtual"]),
        ("monitor", ["monitor", "--input", "sightings.jsonl", "--region", "s=\(Self.uuid)"]),
        ("gateways configure", ["gateways", "configure", "m.yaml", "--mqtt", "mqtt://127.0.0.1/espresense", "--gateway", "espresense"]),
        ("calibrate", ["calibrate", "door", "--manifest", "m.yaml", "--input", "sightings.jsonl"]),
        ("controllers", ["controllers", "--hci", "virtual"]),
        ("plan coverage", ["plan", "coverage", "m.yaml", "--venue", "north"]),
        ("decode", ["decode", "02", "01", "06"]),
    ]
    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

    /// The errors injected, and the status the README's table gives each: a transport failing
    /// is a controller failure (3); an error of no known kind is input the command could not use (2).
    static let injected: [(any Error & Sendable, Int32)] = [
        (HCITransportError(.ioFailure, "hci0: the link broke (injected)"), 3),
        (MQTTError.library("the broker connection failed (injected)"), 3),
        (Unforeseen(), 2),
    ]

    @Test("each command, failing with an error it does not expect, leaves with the documented status",
          arguments: 0..<commands.count, 0..<injected.count)
    func eachCommandLeavesWithTheDocumentedStatus(command: Int, error: Int) async {
        let (name, arguments) = Self.commands[command]
        let (failure, status) = Self.injected[error]
        let reached = Reached()
        let result = await UnexpectedErrorProbe.$hook.withValue({ command in
            reached.record(command)
            return failure
        }) {
            await runBeaconctl(arguments)
        }
        #expect(reached.names == [name], "beaconctl \(arguments.joined(separator: " ")): \(result.error)")
        #expect(result.status == status, "beaconctl \(arguments.joined(separator: " ")) left with \(result.status): \(result.error)")
        #expect(result.error == "beaconctl: error: \(failure)\n", "\(result.error)")
        #expect(result.output.isEmpty)
    }

    @Test func everyCommandHasAProbe() {
        // A new subcommand joins `commands` above, or this fails.
        func leaves(_ command: any ParsableCommand.Type, _ prefix: [String]) -> [String] {
            let name = prefix + [command.configuration.commandName ?? "\(command)"]
            let subcommands = command.configuration.subcommands
            if subcommands.isEmpty { return [name.joined(separator: " ")] }
            return subcommands.flatMap { leaves($0, name) }
        }
        let all = Set(BeaconCtl.configuration.subcommands.flatMap { leaves($0, []) } + ["verify --watch"])
        #expect(all == Set(Self.commands.map(\.name)))
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

/// The command names a probe was reached with.
private final class Reached: @unchecked Sendable {
    // Guarded by `lock`: the hook may be called from any task of the command.
    private let lock = NSLock()
    private var recorded: [String] = []

    func record(_ name: String) { lock.withLock { recorded.append(name) } }
    var names: [String] { lock.withLock { recorded } }
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
