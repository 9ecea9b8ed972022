import ArgumentParser
import BeaconCore
import BeaconFleet
import FleetManifest
import Logging

/// `calibrate --walk`: a receiver profile from levels at several known distances.
extension CalibrateCommand {
    /// A walk has at most this many spots: more is a typo, not a calibration.
    static let maximumWalkSpots = 20

    func validateWalk() throws {
        guard let walk else {
            if inputs.count > 1 {
                throw ValidationError("--input is given \(inputs.count) times; one recording calibrates one beacon at 1 m (several are for --walk, one per distance).")
            }
            for (flag, given) in [("--profile", profile != nil), ("--place", !place.isEmpty)] where given {
                throw ValidationError("\(flag) belongs to --walk (a receiver profile); without --walk, calibrate measures one beacon at 1 m.")
            }
            return
        }
        guard !walk.isEmpty, walk.count <= Self.maximumWalkSpots,
              walk.allSatisfy({ $0.isFinite && (0.1...100).contains($0) })
        else {
            throw ValidationError("--walk takes up to \(Self.maximumWalkSpots) distances in metres (0.1 to 100), comma-separated, e.g. --walk 0.5,1,2,3,5.")
        }
        guard Set(walk).count >= 2 else {
            throw ValidationError("--walk needs at least two different distances to fit a slope; e.g. --walk 0.5,1,2,3,5.")
        }
        if write {
            throw ValidationError("--write records a beacon's 1 m value in the manifest; --walk writes a receiver profile (--profile). Run them separately.")
        }
        if !inputs.isEmpty && inputs.count != walk.count {
            throw ValidationError("--walk has \(walk.count) distances but --input is given \(NumberText.count(inputs.count, "time")): give one recording per distance, in the same order (or none, to walk live).")
        }
        if inputs.filter({ $0 == "-" }).count > 1 {
            throw ValidationError("--input - (standard input) can be read only once.")
        }
        if let profile, profile.isEmpty || profile.hasSuffix("/") {
            throw ValidationError("--profile takes a file name; got '\(profile)'.")
        }
    }

    func runWalk(_ distances: [Double], target: ResolvedBeacon, logger: Logger) async throws {
        let console = Console.current
        guard let destination = profile ?? RangingProfileStore.defaultPath(environment: console.environment) else {
            throw CommandFailure(.usageOrInput, "neither XDG_CONFIG_HOME nor HOME is set, so there is no default place for the receiver profile: give --profile FILE")
        }
        let spots: [CalibrationSampler]
        do {
            spots = inputs.isEmpty
                ? try await walkLive(distances, target: target, logger: logger)
                : try await walkRecordings(distances, target: target, logger: logger)
        } catch let stop as UserStop {
            throw CommandFailure(.findings, "\(beacon): the walk was \(stop) before its last spot; no profile was written: run it again and let it finish")
        } catch let error as LiveCalibrationError {
            throw CommandFailure(error, beaconID: beacon)
        }
        // Said once the levels are read, whether or not they fit.
        func warnOfSeveralReceivers(_ receivers: [String]) {
            guard receivers.count > 1 else { return }
            logger.warning("the walk's spots were heard by \(receivers.joined(separator: ", ")): a receiver profile describes one receiver; fit each separately")
        }
        let walk: CalibrationWalk
        do {
            walk = try CalibrationWalk(
                spots: zip(distances, spots).map { CalibrationWalk.Spot(distance: $0, sampler: $1) }, seconds: seconds,
                place: place, fittedAt: CalibrationWalkReport.utcTimestamp())
        } catch {
            switch error {
            case .spot(let distance, let failure):
                throw CommandFailure(.findings, "\(beacon): at \(ScanTable.decimal(distance, places: 1)) m: \(failure); no profile was written")
            case .notHeard:
                throw CommandFailure(.findings, "\(beacon): not heard on the walk; no profile was written")
            case .noFit(let levels, let failure):
                warnOfSeveralReceivers(CalibrationWalk.receivers(of: spots))
                for line in CalibrationWalkReport.levelLines(levels) { console.line(line) }
                throw CommandFailure(.findings, "\(beacon): the walk gives no profile: \(failure); no profile was written")
            }
        }
        warnOfSeveralReceivers(walk.receivers)
        let (profile, fit, levels) = (walk.profile, walk.fit, walk.levels)
        for line in CalibrationWalkReport.lines(beacon: target, profile: profile, fit: fit) { console.line(line) }
        for warning in CalibrationWalkReport.warnings(fit: fit, levels: levels) { logger.warning("\(beacon): \(warning)") }
        try RangingProfileStore.save(profile, to: destination)
        console.line("wrote the receiver profile to \(destination)\(self.profile == nil ? ": scan and monitor --range use it from now on (--no-profile to range without it)" : "")")
    }

    /// One recording per spot, each used whole unless --seconds limits it.
    private func walkRecordings(_ distances: [Double], target: ResolvedBeacon, logger: Logger) async throws -> [CalibrationSampler] {
        var spots: [CalibrationSampler] = []
        for path in inputs {
            spots.append(try await sampleRecording(path, identity: target.identity, limit: secondsOption ?? .infinity, logger: logger))
        }
        return spots
    }

    /// Live: at each spot, waits for a line on standard input (Enter on a terminal), then
    /// scans for --seconds (`LiveCalibrationRun.walk`).
    private func walkLive(_ distances: [Double], target: ResolvedBeacon, logger: Logger) async throws -> [CalibrationSampler] {
        let controllers = try CalibrationControllers(controller, advertiseHci: advertiseHci, target: target, logger: logger)
        defer { controllers.close() }
        return try await controllers.calibration(of: target, seconds: seconds).walk(
            distances, scans: controllers, stops: SignalStops(), progress: CalibrationProgressText(beaconID: beacon, identity: target.identity))
    }
}
