import BeaconCore

/// `calibrate --walk`'s fit: the samples heard at each spot of a walk, at known distances,
/// turned into one receiver's path-loss profile. How the spots were heard (recordings, a
/// live scan per spot) is the caller's; so are the words and the file the profile goes to.
public struct CalibrationWalk: Sendable {
    /// One spot of the walk: how far from the beacon, and what was heard there.
    public struct Spot: Sendable {
        public var distance: Double
        public var sampler: CalibrationSampler

        public init(distance: Double, sampler: CalibrationSampler) {
            self.distance = distance
            self.sampler = sampler
        }
    }

    /// Each spot's level, in the walk's order.
    public let levels: [PathLossFit.Level]
    public let fit: PathLossFit
    public let profile: RangingProfile
    /// Every receiver that heard the walk, sorted; a profile describes one, so more than one
    /// deserves a warning (the profile is named after the first).
    public let receivers: [String]

    /// Fits the walk. `seconds` is how long each spot was listened to (a level needs
    /// enough samples for it); `place` is the user's name for the place; `fittedAt` the
    /// time stamp the profile keeps.
    public init(spots: [Spot], seconds: Double, place: String, fittedAt: String) throws(CalibrationWalkError) {
        var levels: [PathLossFit.Level] = []
        for spot in spots {
            do {
                levels.append(try spot.sampler.walkLevel(distance: spot.distance, seconds: seconds))
            } catch {
                throw .spot(distance: spot.distance, error)
            }
        }
        // The beacon's own 1 m value, as it advertised it last: the profile's reference.
        guard let measuredPower = spots.compactMap(\.sampler.advertisedMeasuredPower).last else {
            throw .notHeard
        }
        let receivers = Self.receivers(of: spots.map(\.sampler))
        let fit: PathLossFit
        do {
            fit = try PathLossFit(levels: levels)
        } catch {
            throw .noFit(levels: levels, error)
        }
        self.levels = levels
        self.fit = fit
        self.receivers = receivers
        self.profile = RangingProfile(
            receiver: receivers.first ?? "unknown", place: place, fit: fit, referenceMeasuredPower: Double(measuredPower),
            fittedAt: fittedAt)
    }

    /// Every receiver that heard the spots, sorted.
    public static func receivers(of spots: [CalibrationSampler]) -> [String] {
        Set(spots.compactMap(\.receiver)).sorted()
    }
}

/// Why a walk gives no profile.
public enum CalibrationWalkError: Error, Sendable, CustomStringConvertible {
    /// A spot's samples give no level (too few, several transmitters, …).
    case spot(distance: Double, CalibrationError)
    /// The beacon was heard at no spot.
    case notHeard
    /// The levels were read but no path-loss model fits them; `levels` are shown to the user.
    case noFit(levels: [PathLossFit.Level], PathLossFit.Failure)

    public var description: String {
        switch self {
        case .spot(let distance, let error): "at \(NumberText.plain(distance)) m: \(error)"
        case .notHeard: "not heard on the walk"
        case .noFit(_, let error): "the walk gives no profile: \(error)"
        }
    }
}
