import BeaconTestKit
import Foundation
import ProcessTestKit
import Testing

@testable import BeaconCLI

@Suite("beaconctl verify --watch --print-systemd-template")
struct WatchSystemdUnitTests {
    static func template(_ extra: [String] = []) async -> CommandResult {
        await runBeaconctl(["verify", "--watch"] + extra + ["--print-systemd-template"])
    }

    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test("instance NAME watches /etc/beaconctl/NAME.yaml with the input and options of NAME.env, its state in /var/lib/beaconctl")
    func template() async throws {
        let result = await Self.template()
        #expect(result.status == 0)
        #expect(result.error.isEmpty)
        let lines = Self.lines(result.output)
        let execStart = try #require(lines.first { $0.hasPrefix("ExecStart=/") })
        let binary = String(execStart.dropFirst("ExecStart=".count).prefix { $0 != " " })
        #expect(FileManager.default.isExecutableFile(atPath: binary), "the binary must be named by absolute path: \(binary)")
        // Specifiers and variables unescaped, so that systemd expands them: the input as one
        // word, the options split at whitespace.
        #expect(execStart.hasSuffix(
            " verify /etc/beaconctl/%i.yaml --watch --input ${BEACONCTL_WATCH_INPUT} --state /var/lib/beaconctl/%i.state "
                + "$BEACONCTL_WATCH_OPTIONS"))
        #expect(!execStart.contains("--print-systemd-template"))
        for line in [
            "[Unit]", "Description=beaconctl: continuous audit of the beacons of /etc/beaconctl/%i.yaml",
            "Documentation=man:beaconctl-verify(1)", "Wants=network-online.target", "After=network-online.target",
            "[Service]", "Type=exec", "EnvironmentFile=-/etc/beaconctl/%i.env",
            // Unprivileged, one dynamic user for every instance (they share StateDirectory=).
            "DynamicUser=yes", "User=beaconctl-watch", "StateDirectory=beaconctl",
            "CapabilityBoundingSet=", "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes", "PrivateDevices=yes",
            "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
            "Restart=on-failure", "RestartPreventExitStatus=1 2", "KillSignal=SIGTERM", "TimeoutStopSec=20",
            "[Install]", "WantedBy=multi-user.target",
        ] {
            #expect(lines.contains(line), "the unit lacks \(line)")
        }
        #expect(!lines.contains { $0.hasPrefix("AmbientCapabilities=") }, "a broker's client needs no capability")
        #expect(!lines.contains { $0.hasPrefix("User=root") || $0 == "User=0" })
        #expect(result.output.hasSuffix("WantedBy=multi-user.target\n"))
    }

    @Test("the statuses that stop the restarts are the ones that mean: fix the configuration")
    func permanentStatuses() {
        #expect(WatchSystemdUnit.permanentExitStatuses == [Int(ExitStatus.findings.rawValue), Int(ExitStatus.usageOrInput.rawValue)])
        // A failing controller or broker (3) is worth restarting.
        #expect(!WatchSystemdUnit.permanentExitStatuses.contains(Int(ExitStatus.controller.rawValue)))
    }

    @Test("--quiet and -v are carried into ExecStart")
    func verbosity() async throws {
        let result = await Self.template(["-vv"])
        #expect(result.status == 0)
        let execStart = try #require(Self.lines(result.output).first { $0.hasPrefix("ExecStart=/") })
        #expect(execStart.contains(" verify -vv /etc/beaconctl/%i.yaml --watch "))
    }

    @Test(
        "--print-systemd-template needs --watch, and takes no manifest, input, state or watch option: NAME.env holds them",
        arguments: [
            (["verify", "--print-systemd-template"], "--print-systemd-template prints the unit of the continuous audit (beaconctl-watch@.service): add --watch"),
            (["verify", "fleets/", "--print-systemd-template"], "add --watch, as in `beaconctl verify --watch --print-systemd-template`."),
            (["verify", "--watch", "fleets/", "--print-systemd-template"], "leave out the manifest fleets/ and put the options in that file."),
            (["verify", "--watch", "--input", "mqtt://h/p", "--state", "s", "--print-systemd-template"], "leave out --input, --state and put"),
            (["verify", "--watch", "--mqtt", "mqtt://h/p", "--silence", "60", "--print-systemd-template"],
             "(BEACONCTL_WATCH_INPUT, BEACONCTL_WATCH_OPTIONS): leave out --silence, --mqtt and put"),
        ] as [([String], String)])
    func usage(arguments: [String], message: String) async {
        let result = await runBeaconctl(arguments)
        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        #expect(result.error.contains(message), "\(result.error)")
    }

    @Test("an unset BEACONCTL_WATCH_INPUT reaches the watch as an empty --input: a usage error that says what to set")
    func emptyInput() async {
        let result = await runBeaconctl(["verify", "/etc/beaconctl/shop.yaml", "--watch", "--input", "", "--state", "/nonexistent/shop.state"])
        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        #expect(result.error.contains(
            "--input is empty: name a file, - for standard input, or mqtt://HOST[:PORT]/PREFIX; as the service "
                + "beaconctl-watch@NAME, set BEACONCTL_WATCH_INPUT in /etc/beaconctl/NAME.env."), "\(result.error)")
    }

    @Test(
        "systemd-analyze verify accepts an instance of the printed template, without a word",
        .enabled(if: SystemdAnalyze.shouldRun))
    func systemdAnalyzeVerify() async throws {
        let analyze = try SystemdAnalyze.binary.get()
        let result = await Self.template()
        #expect(result.status == 0)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beaconctl-unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(result.output.utf8).write(to: folder.appendingPathComponent(WatchSystemdUnit.unitName))
        // The instance is loaded from the template beside it. The man page it names is not
        // installed by a test build: the package test checks it (scripts/test-package.sh).
        let (status, output) = try await SystemdAnalyze.run(
            analyze, ["verify", "--man=no", folder.appendingPathComponent("beaconctl-watch@jays-donuts.service").path], in: folder)
        #expect(status == 0, "\(output)")
        #expect(output.isEmpty, "systemd-analyze verify warns:\n\(output)")
    }
}

/// Debian's `systemd-analyze` (package `systemd`), which checks a unit as systemd loads it.
enum SystemdAnalyze {
    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    static let binary: Result<String, Unavailable> = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for candidate in ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"] + path.split(separator: ":").map({ "\($0)/systemd-analyze" })
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return .success(candidate)
        }
        return .failure(Unavailable(description: "no systemd-analyze (Debian package `systemd`); scripts/test.sh installs it"))
    }()

    /// Under `CI=true` a missing systemd-analyze fails the test instead of skipping it.
    static var isRequired: Bool {
        let value = ProcessInfo.processInfo.environment["CI"]?.lowercased()
        return value == "true" || value == "1"
    }

    static var shouldRun: Bool { isRequired || (try? binary.get()) != nil }

    /// Runs it to its end; its standard output and error together, through a file (a pipe
    /// could be held open by a child another test spawns meanwhile). The end is awaited
    /// through the termination handler: no thread of the cooperative pool blocks.
    static func run(_ binary: String, _ arguments: [String], in folder: URL) async throws -> (status: Int32, output: String) {
        let log = folder.appendingPathComponent("systemd-analyze.log")
        try Data().write(to: log)
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = handle
        let status = try await ChildProcessExit.run(process).wait(for: "\(binary) ending")
        let output = String(decoding: try Data(contentsOf: log), as: UTF8.self)
        return (status.value, output)
    }
}
