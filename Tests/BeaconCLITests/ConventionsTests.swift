import Testing
@testable import BeaconCLI

@Suite("Command-line conventions")
struct ConventionsTests {
    @Test func helpExitsZeroAndDocumentsExitCodes() async {
        let result = await runBeaconctl(["--help"])
        #expect(result.status == 0)
        #expect(result.output.contains("USAGE: beaconctl"))
        #expect(result.output.contains("2 usage error or unreadable input"))
        #expect(result.error.isEmpty)
    }

    @Test func versionIsPrinted() async {
        let result = await runBeaconctl(["--version"])
        #expect(result.status == 0)
        #expect(result.output == BeaconCtlVersion.current + "\n")
    }

    @Test func unknownOptionIsAUsageErrorWithExitTwo() async {
        let result = await runBeaconctl(["--no-such-option"])
        #expect(result.status == 2)
        #expect(result.error.contains("Unknown option '--no-such-option'"))
        #expect(result.output.isEmpty)
    }

    @Test func colourFollowsTerminalAndNoColor() {
        #expect(Style(choice: .auto, isTerminal: true, environment: [:]).enabled)
        #expect(!Style(choice: .auto, isTerminal: false, environment: [:]).enabled)
        #expect(!Style(choice: .auto, isTerminal: true, environment: ["NO_COLOR": "1"]).enabled)
        // An empty NO_COLOR does not disable colour (no-color.org).
        #expect(Style(choice: .auto, isTerminal: true, environment: ["NO_COLOR": ""]).enabled)
        #expect(Style(choice: .always, isTerminal: false, environment: ["NO_COLOR": "1"]).enabled)
        #expect(!Style(choice: .never, isTerminal: true, environment: [:]).enabled)
        #expect(Style(choice: .never, isTerminal: true, environment: [:]).error("x") == "x")
        #expect(Style(choice: .always, isTerminal: false, environment: [:]).error("x") == "\u{1B}[1;31mx\u{1B}[0m")
    }

    @Test func verbosityMapsToLogLevels() throws {
        #expect(try GlobalOptions.parse([]).logLevel == .notice)
        #expect(try GlobalOptions.parse(["-v"]).logLevel == .info)
        #expect(try GlobalOptions.parse(["-vv"]).logLevel == .debug)
        #expect(try GlobalOptions.parse(["-q"]).logLevel == .error)
        #expect(throws: (any Error).self) { try GlobalOptions.parse(["-q", "-v"]) }
    }

    @Test func logsGoToStandardErrorOnly() async {
        let captured = CapturedOutput()
        Console.$current.withValue(captured.console()) {
            let logger = (try? GlobalOptions.parse(["-v"]))?.makeLogger()
            logger?.info("opening controller", metadata: ["hci": "hci0"])
            logger?.debug("not shown at -v")
        }
        #expect(captured.output.isEmpty)
        #expect(captured.error == "info: opening controller [hci=hci0]\n")
    }
}
