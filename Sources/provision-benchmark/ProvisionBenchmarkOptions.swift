import ArgumentParser

/// Command-line options of provision-benchmark.
struct ProvisionBenchmarkOptions: ParsableArguments {
    @Option(help: "KBeacons to provision (1 to 200).")
    var beacons = 20

    @Option(name: .customLong("discovery-seconds"), help: "The longest the discovery scan listens (provision --discovery-seconds).")
    var discoverySeconds = 5.0

    @Option(name: .customLong("interval-ms"), help: "The advertising interval written into each beacon, milliseconds (100 to 10000).")
    var intervalMilliseconds = 350

    @Option(
        help: ArgumentHelp(
            "The Python venv with RootCanal and Bumble (else $BEACONCTL_VENV, else .venv here).", valueName: "folder"))
    var venv: String?

    @Option(
        name: .customLong("peripheral"),
        help: ArgumentHelp("The Bumble KBeacon script.", valueName: "file"))
    var peripheralScript = "Tests/IntegrationTests/Peripherals/kbeacon_peripheral.py"

    func validate() throws {
        guard (1...200).contains(beacons) else { throw ValidationError("--beacons takes 1 to 200; got \(beacons)") }
        guard discoverySeconds.isFinite, discoverySeconds > 0, discoverySeconds <= 600 else {
            throw ValidationError("--discovery-seconds takes more than 0 and at most 600; got \(discoverySeconds)")
        }
        guard (100...10_000).contains(intervalMilliseconds) else {
            throw ValidationError("--interval-ms takes 100 to 10000; got \(intervalMilliseconds)")
        }
    }
}
