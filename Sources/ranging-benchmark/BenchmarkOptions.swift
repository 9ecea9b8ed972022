import ArgumentParser
import BeaconCore

/// The command line of ranging-benchmark.
struct BenchmarkOptions: ParsableArguments {
    @Option(
        name: .customLong("distances"), parsing: .singleValue,
        help: ArgumentHelp("True distances to range, metres, comma-separated (0 to 100).", valueName: "m,m,..."),
        transform: { text in text.split(separator: ",").map { Double($0) ?? -1 } })
    var distanceLists: [[Double]] = []

    @Option(name: .customLong("sigma"), help: "Per-packet noise standard deviation, dB (0 to 20).")
    var sigma = 2.0

    @Option(name: .customLong("spatial-sigma"), help: "Shadowing fixed at a spot, standard deviation, dB (0 to 20; 0: none).")
    var spatialSigma = 4.0

    @Option(
        name: .customLong("fading-k"),
        help: ArgumentHelp("Rician K factor of the per-channel multipath fading (0 to 100; 'none': no fading).", valueName: "k"),
        transform: { text in text == "none" ? Double.nan : Double(text) ?? -1 })
    var fadingFactor = 2.0

    @Option(name: .customLong("exponent"), help: "Path-loss exponent the estimator assumes without a profile (1 to 6; default: beaconctl's default).")
    var pathLossExponent = RangingConfiguration.defaultPathLossExponent

    @Option(name: .customLong("air-exponent"), help: "Path-loss exponent of the simulated air (1 to 6).")
    var airExponent = 2.0

    @Option(help: "Seconds of advertising simulated per trial, at 10 Hz (11 to 3600).")
    var seconds = 60

    @Option(help: "Trials per distance in each room (1 to 10000).")
    var trials = 10

    @Option(help: "Virtual rooms: each its own shadowing and fading, walked and ranged (1 to 100).")
    var rooms = 5

    @Option(name: .customLong("loss"), help: "Packet loss probability (0 to 0.95).")
    var packetLoss = 0.0

    @Option(help: "Seed of the simulation: the same seed gives the same figures on every machine.")
    var seed: UInt64 = 0xBEAC_0042

    @Option(
        name: .customLong("real-data"),
        help: ArgumentHelp(
            "The folder of Herald recordings to evaluate on ('none' to skip). Default: $BEACONCTL_HERALD_DATA, else ../shared/datasets/herald-edison beside the checkout.",
            valueName: "dir"))
    var realData: String?

    @Flag(help: "Exit 1 unless, on every rig of the real data, beaconctl's default (1 m calibration, no walk) is clearly below the constant-1.5 m floor and no worse than the best peer (also with the exponent fitted on the other rig), the walk profile no worse than the best peer, and the walk profile is the closest in the simulation.")
    var check = false

    var fadingK: Double? { fadingFactor.isNaN ? nil : fadingFactor }

    var skipsRealData: Bool { realData == "none" }

    var distances: [Double] { distanceLists.last ?? [0.5, 1, 2, 5, 10] }

    func validate() throws {
        guard !distances.isEmpty, distances.allSatisfy({ $0 > 0 && $0 <= 100 }) else {
            throw ValidationError("--distances takes metres (0 to 100) separated by commas")
        }
        guard sigma.isFinite, (0...20).contains(sigma) else { throw ValidationError("--sigma takes 0 to 20 dB") }
        guard spatialSigma.isFinite, (0...20).contains(spatialSigma) else {
            throw ValidationError("--spatial-sigma takes 0 to 20 dB")
        }
        guard fadingFactor.isNaN || (0...100).contains(fadingFactor) else {
            throw ValidationError("--fading-k takes 0 to 100, or 'none'")
        }
        guard pathLossExponent.isFinite, (1...6).contains(pathLossExponent) else {
            throw ValidationError("--exponent takes 1 to 6")
        }
        guard airExponent.isFinite, (1...6).contains(airExponent) else {
            throw ValidationError("--air-exponent takes 1 to 6")
        }
        guard (11...3600).contains(seconds) else { throw ValidationError("--seconds takes 11 to 3600") }
        guard (1...10_000).contains(trials) else { throw ValidationError("--trials takes 1 to 10000") }
        guard (1...100).contains(rooms) else { throw ValidationError("--rooms takes 1 to 100") }
        guard packetLoss.isFinite, (0...0.95).contains(packetLoss) else { throw ValidationError("--loss takes 0 to 0.95") }
    }
}
