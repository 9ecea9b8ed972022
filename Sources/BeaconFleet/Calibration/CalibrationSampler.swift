import BeaconCore

/// Collects the RSSI samples of one beacon identity for calibration, per transmitting
/// address, so that a second transmitter of the same identity (a clone, a spare left
/// powered, a phone simulating it) is noticed instead of being averaged in.
public struct CalibrationSampler: Sendable {
    public let identity: BeaconIdentity
    /// Samples per address, in order of first sighting.
    private var samplesByAddress: [(address: BluetoothAddress?, rssi: [Double])] = []
    /// Sightings of the identity that carried no RSSI.
    public private(set) var sightingsWithoutRSSI = 0
    /// The measured power the beacon advertised (the newest sighting's).
    public private(set) var advertisedMeasuredPower: Int8?
    /// The receiver that heard it (the newest sighting's).
    public private(set) var receiver: String?

    public init(identity: BeaconIdentity) {
        self.identity = identity
    }

    /// Takes a sighting into account; sightings of other identities are ignored.
    public mutating func add(_ sighting: Sighting) {
        guard sighting.identity == identity else { return }
        advertisedMeasuredPower = sighting.advertisement.measuredPower
        receiver = sighting.receiver
        guard let rssi = sighting.rssi else {
            sightingsWithoutRSSI += 1
            return
        }
        if let index = samplesByAddress.firstIndex(where: { $0.address == sighting.address }) {
            samplesByAddress[index].rssi.append(Double(rssi))
        } else {
            samplesByAddress.append((sighting.address, [Double(rssi)]))
        }
    }

    /// The addresses the identity was heard from, with their sample counts.
    public var transmitters: [(address: BluetoothAddress?, samples: Int)] {
        samplesByAddress.map { ($0.address, $0.rssi.count) }
    }

    /// The estimate (`Calibration.estimate`: 10 % trimmed at each end), or why there is none.
    public func estimate(afterSeconds seconds: Double) throws(CalibrationError) -> CalibrationEstimate {
        guard samplesByAddress.count <= 1 else {
            throw .severalTransmitters(identity: identity, addresses: transmitters)
        }
        guard let only = samplesByAddress.first, let estimate = Calibration.estimate(samples: only.rssi) else {
            throw .notHeard(identity: identity, seconds: seconds, withoutRSSI: sightingsWithoutRSSI)
        }
        return estimate
    }
}

extension CalibrationSampler {
    /// One spot of a calibration walk: the level of the samples taken `distance` metres from
    /// the beacon, trimmed as the fit wants (`PathLossFit.levelTrimFraction`: a fade on one
    /// advertising channel drags a plain mean), or why there is none.
    public func walkLevel(distance: Double, seconds: Double) throws(CalibrationError) -> PathLossFit.Level {
        guard samplesByAddress.count <= 1 else {
            throw .severalTransmitters(identity: identity, addresses: transmitters)
        }
        guard let only = samplesByAddress.first, only.rssi.count >= Calibration.minimumSamples,
              let level = RSSIFilter.trimmedMean(only.rssi, trimFraction: PathLossFit.levelTrimFraction)
        else {
            throw .tooFewSamples(identity: identity, seconds: seconds, samples: samplesByAddress.first?.rssi.count ?? 0, distance: distance)
        }
        return PathLossFit.Level(distance: distance, rssi: level, sampleCount: only.rssi.count)
    }
}

/// Why calibration gave no value.
public enum CalibrationError: Error, Hashable, Sendable, CustomStringConvertible {
    case notHeard(identity: BeaconIdentity, seconds: Double, withoutRSSI: Int)
    case severalTransmitters(identity: BeaconIdentity, addresses: [(address: BluetoothAddress?, samples: Int)])
    case tooFewSamples(identity: BeaconIdentity, seconds: Double, samples: Int, distance: Double)

    public var description: String {
        switch self {
        case .notHeard(let identity, let seconds, let withoutRSSI):
            let note = withoutRSSI == 0 ? "" : withoutRSSI == 1 ? " (1 report came without an RSSI)" : " (\(withoutRSSI) reports came without an RSSI)"
            return "\(identity) was not heard with an RSSI in \(SightingJSONLines.timeText(seconds)) s\(note): check that the beacon advertises and that the scanner is 1 m from it"
        case .severalTransmitters(let identity, let addresses):
            let list = addresses.map { "\(BluetoothAddress.text($0.address)) (\($0.samples) samples)" }.joined(separator: ", ")
            return "\(identity) is advertised by \(addresses.count) devices: \(list); switch off all but the beacon being calibrated and try again (a beacon that rotates its private address mid-run shows up like this too: run again)"
        case .tooFewSamples(let identity, let seconds, let samples, let distance):
            return "\(identity) gave \(NumberText.count(samples, "RSSI sample")) in \(SightingJSONLines.timeText(seconds)) s at \(SightingJSONLines.timeText(distance)) m; a spot needs at least \(Calibration.minimumSamples): stay longer (--seconds) or check that the beacon is in range"
        }
    }

    public static func == (lhs: CalibrationError, rhs: CalibrationError) -> Bool {
        lhs.description == rhs.description
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(description)
    }
}
