import ArgumentParser

/// Command-line options of radio-benchmark.
struct RadioBenchmarkOptions: ParsableArguments {
    @Option(
        name: .customLong("beacons"), parsing: .singleValue,
        help: ArgumentHelp("Beacon counts to run, comma-separated (1 to 3840).", valueName: "N,N,..."),
        transform: { text in text.split(separator: ",").map { Int($0) ?? 0 } })
    var beaconLists: [[Int]] = []

    @Option(name: .customLong("repeat"), help: "Runs per measurement; the best is kept.")
    var repeats = 3

    @Flag(help: "Exit with status 1 when the 100-beacon target is missed (for CI).")
    var check = false

    var beaconCounts: [Int] { beaconLists.last ?? [1, 100, 1000] }

    func validate() throws {
        guard repeats > 0 else { throw ValidationError("--repeat needs a positive number of runs") }
        guard !beaconCounts.isEmpty, beaconCounts.allSatisfy({ (1...3840).contains($0) }) else {
            throw ValidationError("--beacons takes beacon counts from 1 to 3840 separated by commas")
        }
    }
}
