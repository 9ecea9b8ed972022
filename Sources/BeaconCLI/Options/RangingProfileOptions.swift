import ArgumentParser
import BeaconCore
import BeaconFleet
import Logging

/// `--profile FILE` / `--no-profile` / `--path-loss-exponent n`: the distance model of
/// `scan` and `monitor --range`. Without flags the default receiver profile is used when
/// `calibrate --walk` saved one; otherwise measured power alone with the default exponent
/// (`RangingConfiguration.defaultPathLossExponent`, 3.5: chosen on real recordings, docs/ranging.md).
struct RangingProfileOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Range with this receiver profile (written by `calibrate --walk`). Default: the saved one, if any.",
        valueName: "file"))
    var profile: String?

    @Flag(help: "Range with measured power alone, ignoring any saved receiver profile.")
    var noProfile = false

    @Option(help: ArgumentHelp(
        "Path-loss exponent of the distance model (default 3.5 without a profile; 2 in free space, 2–4 indoors; overrides the profile's).",
        valueName: "n"))
    var pathLossExponent: Double?

    func validate() throws {
        if let pathLossExponent, !(pathLossExponent.isFinite && (1...6).contains(pathLossExponent)) {
            throw ValidationError("--path-loss-exponent must be between 1 and 6 (2 in free space, 2–4 indoors); got \(pathLossExponent).")
        }
        if noProfile && profile != nil {
            throw ValidationError("--no-profile and --profile contradict each other: pass one.")
        }
    }

    /// The flags given, for a refusal where nothing is ranged.
    var givenFlags: [String] {
        [profile.map { _ in "--profile" }, noProfile ? "--no-profile" : nil, pathLossExponent.map { _ in "--path-loss-exponent" }].compactMap { $0 }
    }

    /// Refuses these flags where nothing is ranged: without `flag` (`monitor --range`), which
    /// they would change the estimates of.
    func checkUnused(by flag: String) throws {
        let given = givenFlags
        if !given.isEmpty {
            throw ValidationError("\(given.joined(separator: ", ")) choose\(given.count == 1 ? "s" : "") how \(flag) estimates distances; add \(flag) or leave \(given.count == 1 ? "it" : "them") out.")
        }
    }

    /// The ranging configuration these options ask for. Says on standard error which
    /// profile is in use; a profile fitted on another receiver than `receiver` is used with
    /// a warning (the room part of it still applies).
    func configuration(receiver: String?, console: Console, logger: Logger) throws(CommandFailure) -> RangingConfiguration {
        var configuration = RangingConfiguration()
        var path = profile
        if path == nil, !noProfile, let saved = RangingProfileStore.defaultPath(environment: console.environment),
           RangingProfileStore.exists(saved) {
            path = saved
        }
        if let path {
            let loaded = try RangingProfileStore.load(path)
            configuration = configuration.applying(loaded)
            let place = loaded.place.isEmpty ? "" : " in \(loaded.place)"
            logger.notice("ranging with the receiver profile \(path) (fitted on \(loaded.receiver)\(place): n = \(ScanTable.decimal(loaded.pathLossExponent, places: 2)), offset \(ScanTable.decimal(loaded.rssiOffset, places: 1)) dB); --no-profile to range without it")
            if let receiver, !ReceiverName.matches(loaded.receiver, controller: receiver) {
                logger.warning("the receiver profile \(path) was fitted on \(loaded.receiver), not \(receiver): its RSSI offset may not hold for this receiver; walk this one with `beaconctl calibrate --walk`")
            }
        }
        if let pathLossExponent {
            configuration.distanceModel = PathLossModel(pathLossExponent: pathLossExponent)
        }
        return configuration
    }
}
