/// Command-line options of radio-benchmark.
struct RadioBenchmarkOptions {
    var beaconCounts = [1, 100, 1000]
    var repeats = 3
    /// Exit with status 1 when the 100-beacon target is missed (for CI).
    var check = false

    static let usage = "usage: radio-benchmark [--beacons N,N,...] [--repeat N] [--check]"

    init(arguments: [String]) throws(RadioBenchmarkUsageError) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--beacons":
                guard let list = remaining.popFirst() else {
                    throw RadioBenchmarkUsageError("--beacons needs a list, e.g. --beacons 1,100,1000")
                }
                let parsed = list.split(separator: ",").map { Int($0) }
                guard !parsed.isEmpty, parsed.allSatisfy({ ($0 ?? 0) > 0 && ($0 ?? 0) <= 3840 }) else {
                    throw RadioBenchmarkUsageError("--beacons takes beacon counts from 1 to 3840 separated by commas, not `\(list)`")
                }
                beaconCounts = parsed.compactMap { $0 }
            case "--repeat":
                guard let text = remaining.popFirst(), let count = Int(text), count > 0 else {
                    throw RadioBenchmarkUsageError("--repeat needs a positive number of runs")
                }
                repeats = count
            case "--check":
                check = true
            case "--help", "-h":
                throw RadioBenchmarkUsageError(Self.usage)
            default:
                throw RadioBenchmarkUsageError("unknown argument `\(argument)`\n\(Self.usage)")
            }
        }
    }
}

struct RadioBenchmarkUsageError: Error {
    var message: String

    init(_ message: String) {
        self.message = message
    }
}
