import BeaconFleet

/// The stepped colours of a coverage map: 5 dB bands from the coverage threshold up, in a
/// perceptually even dark-to-bright scale (viridis), so "brighter is stronger" holds for
/// everyone including colour-blind readers; below the threshold a neutral grey; below the
/// dead-zone level a hatch. Steps rather than a smooth ramp, so a reader can tell −70 from
/// −75 dBm on the map by matching a swatch.
public struct CoverageColorScale: Hashable, Sendable {
    public struct Band: Hashable, Sendable {
        /// Lowest RSSI in the band (dBm), `nil` for the open band at the bottom.
        public var lower: Double?
        /// RSSI where the next band starts, `nil` for the open band at the top.
        public var upper: Double?
        public var fill: String
        public var label: String
    }

    public let bands: [Band]
    /// Index in `bands` of the dead-zone band (always 0) and of the below-threshold band.
    public let deadBand = 0
    public let marginalBand = 1

    /// Width of a band in dB.
    public static let step = 5.0
    /// Viridis at seven even stops, dark to bright.
    static let covered = ["#440154", "#443983", "#31688e", "#21918c", "#35b779", "#90d743", "#fde725"]
    public static let deadFill = "#f4f1ee"
    public static let deadHatch = "#c0392b"
    public static let marginalFill = "#b8b8b8"

    public init(threshold: Double, deadBelow: Double) {
        var bands = [
            Band(lower: nil, upper: deadBelow, fill: Self.deadFill, label: "< \(dBmText(deadBelow))")
        ]
        if deadBelow < threshold {
            bands.append(Band(lower: deadBelow, upper: threshold, fill: Self.marginalFill, label: dBmText(deadBelow)))
        } else {
            // No room between the two levels: an empty band keeps the indices fixed.
            bands.append(Band(lower: deadBelow, upper: deadBelow, fill: Self.marginalFill, label: dBmText(deadBelow)))
        }
        for (index, fill) in Self.covered.enumerated() {
            let lower = threshold + Double(index) * Self.step
            let isLast = index == Self.covered.count - 1
            bands.append(Band(lower: lower, upper: isLast ? nil : lower + Self.step, fill: fill, label: dBmText(lower)))
        }
        self.bands = bands
    }

    /// The band an RSSI falls in.
    public func band(for rssi: Double) -> Int {
        for index in bands.indices.reversed() {
            if let lower = bands[index].lower, rssi >= lower, bands[index].upper.map({ rssi < $0 }) ?? true {
                return index
            }
        }
        return deadBand
    }
}
