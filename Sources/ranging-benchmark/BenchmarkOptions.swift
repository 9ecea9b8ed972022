/// The command line of ranging-benchmark.
struct BenchmarkOptions {
    var distances: [Double] = [0.5, 1, 2, 5, 10]
    /// Shadowing standard deviation, dB.
    var sigma = 4.0
    var pathLossExponent = 2.0
    /// Seconds of advertising simulated per trial, at 10 Hz.
    var seconds = 60
    var trials = 20
    var packetLoss = 0.0
    var seed: UInt64 = 0xBEAC_0042

    static let usage = """
        usage: ranging-benchmark [--distances 0.5,1,2,5,10] [--sigma DB] [--exponent N] [--seconds S]
                                 [--trials N] [--loss P] [--seed N]
        """

    init(arguments: [String]) throws(UsageError) {
        var remaining = arguments[...]
        func value(_ name: String) throws(UsageError) -> String {
            guard let text = remaining.popFirst() else { throw UsageError("\(name) needs a value\n\(Self.usage)") }
            return text
        }
        func number(_ name: String, _ range: ClosedRange<Double>) throws(UsageError) -> Double {
            let text = try value(name)
            guard let parsed = Double(text), parsed.isFinite, range.contains(parsed) else {
                throw UsageError("\(name) takes a number from \(range.lowerBound) to \(range.upperBound), not `\(text)`")
            }
            return parsed
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--distances":
                let text = try value(argument)
                let parsed = text.split(separator: ",").map { Double($0) }
                guard !parsed.isEmpty, parsed.allSatisfy({ ($0 ?? 0) > 0 && ($0 ?? 0) <= 100 }) else {
                    throw UsageError("--distances takes metres (0 to 100) separated by commas, not `\(text)`")
                }
                distances = parsed.compactMap { $0 }
            case "--sigma": sigma = try number(argument, 0...20)
            case "--exponent": pathLossExponent = try number(argument, 1...6)
            case "--seconds": seconds = Int(try number(argument, 11...3600))
            case "--trials": trials = Int(try number(argument, 1...10_000))
            case "--loss": packetLoss = try number(argument, 0...0.95)
            case "--seed":
                let text = try value(argument)
                guard let parsed = UInt64(text) else { throw UsageError("--seed takes a whole number, not `\(text)`") }
                seed = parsed
            case "--help", "-h":
                throw UsageError(Self.usage)
            default:
                throw UsageError("unknown argument `\(argument)`\n\(Self.usage)")
            }
        }
    }
}

struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
