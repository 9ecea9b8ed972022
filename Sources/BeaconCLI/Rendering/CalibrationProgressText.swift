#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BeaconCore
import BeaconFleet

/// What `calibrate` says on standard error while it collects live: what to do, spot by spot.
struct CalibrationProgressText: CalibrationProgress {
    let beaconID: String
    let identity: BeaconIdentity
    /// Whether the walk's pacing lines come from a person at a terminal (press Enter), rather
    /// than from a program.
    let prompting: Bool

    init(beaconID: String, identity: BeaconIdentity, prompting: Bool = isatty(STDIN_FILENO) == 1) {
        self.beaconID = beaconID
        self.identity = identity
        self.prompting = prompting
    }

    func collecting(for seconds: Double) {
        Console.current.errorLine("calibrating \(beaconID) (\(identity)) for \(ScanTable.decimal(seconds, places: 0)) s: hold the scanner 1 m from it")
    }

    func walkStarting(spots: Int, seconds: Double, controller: String) {
        Console.current.errorLine("walk: \(spots) spots, \(ScanTable.decimal(seconds, places: 0)) s each, on \(controller); "
            + (prompting ? "press Enter when standing at each one" : "each line on standard input starts the next spot"))
    }

    func spotWaiting(index: Int, of count: Int, distance: Double) {
        Console.current.errorLine("spot \(index + 1) of \(count): stand \(Self.spot(distance, beaconID)), both still\(prompting ? ", then press Enter" : "")")
    }

    func spotCollected(samples: Int) {
        Console.current.errorLine("  \(NumberText.count(samples, "sample"))")
    }

    /// "2.0 m from BEACON".
    static func spot(_ distance: Double, _ beaconID: String) -> String {
        "\(ScanTable.decimal(distance, places: 1)) m from \(beaconID)"
    }
}
