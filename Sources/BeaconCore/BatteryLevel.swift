/// A battery level as a beacon or a gateway reports it, or as a manifest sets a threshold:
/// a voltage (Eddystone-TLM's VBATT, most vendor frames) or a percentage (some gateways and
/// vendor frames give only that). The two are never converted into each other: how volts
/// map to percent depends on the cell, and a guessed mapping would page too early or too
/// late. A threshold in volts judges readings in volts, one in percent readings in percent.
public enum BatteryLevel: Hashable, Sendable, CustomStringConvertible {
    case millivolts(UInt16)
    case percent(UInt8)

    /// Thresholds a manifest may set: 0.5…5 V covers every cell a beacon runs on (a single
    /// alkaline or lithium cell, two in series, a 3.6 V lithium thionyl chloride cell).
    public static let acceptedMillivolts: ClosedRange<UInt16> = 500...5000
    public static let acceptedPercent: ClosedRange<UInt8> = 1...99

    /// Reads `2.6V`, `2.6 V`, `2600mV`, `2600 mV` or `20%` (a plain number is not accepted
    /// here: the manifest reader takes a bare number as volts itself); `nil` for anything else.
    public init?(text: String) {
        let trimmed = text.filter { $0 != " " }
        let lower = trimmed.lowercased()
        if lower.hasSuffix("mv"), let value = Double(lower.dropLast(2)), value.isFinite,
           let millivolts = UInt16(exactly: value.rounded()) {
            self = .millivolts(millivolts)
        } else if lower.hasSuffix("v"), let value = Double(lower.dropLast()), value.isFinite, value >= 0, value <= 60,
                  let millivolts = UInt16(exactly: (value * 1000).rounded()) {
            self = .millivolts(millivolts)
        } else if lower.hasSuffix("%"), let value = UInt8(lower.dropLast()), value <= 100 {
            self = .percent(value)
        } else {
            return nil
        }
    }

    /// Whether a threshold is one the manifest accepts (see the ranges above).
    public var isAcceptedThreshold: Bool {
        switch self {
        case .millivolts(let value): Self.acceptedMillivolts.contains(value)
        case .percent(let value): Self.acceptedPercent.contains(value)
        }
    }

    public var description: String {
        switch self {
        case .millivolts(let value): "\(Self.voltsText(value)) V"
        case .percent(let value): "\(value) %"
        }
    }

    /// `2.95` for 2950 mV, `3` for 3000: volts with no trailing zeros.
    public static func voltsText(_ millivolts: UInt16) -> String {
        let whole = millivolts / 1000
        var fraction = String(millivolts % 1000)
        while fraction.count < 3 { fraction = "0" + fraction }
        while fraction.last == "0" { fraction.removeLast() }
        return fraction.isEmpty ? "\(whole)" : "\(whole).\(fraction)"
    }
}

/// The cell a beacon runs on, as the manifest names it (`battery: CR2477`): kept as written,
/// with the chemistry read from the IEC name where it has one, because the chemistry says
/// how far a voltage trend can be trusted (docs/health.md).
public struct BatteryType: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var chemistry: Chemistry

    public enum Chemistry: String, Hashable, Sendable {
        /// Lithium manganese dioxide (CR coin and cylindrical cells, 3 V): flat until shortly
        /// before the end, so a trend warns late.
        case lithiumManganese = "lithium-manganese"
        /// Lithium thionyl chloride (ER cells, 3.6 V): flatter still.
        case lithiumThionylChloride = "lithium-thionyl-chloride"
        /// Alkaline (LR, AA, AAA): declines steadily, the case a trend forecasts best.
        case alkaline
        case unknown
    }

    public init(name: String) {
        self.name = name
        chemistry = Self.chemistry(of: name)
    }

    public var description: String { name }

    /// IEC 60086 names: the first letter the chemistry (C lithium manganese, E lithium
    /// thionyl chloride, L alkaline), the second the shape; AA and AAA sold alone are
    /// alkaline unless called lithium.
    static func chemistry(of name: String) -> Chemistry {
        let upper = name.uppercased()
        if upper.contains("LITHIUM") || upper.hasPrefix("CR") || upper.hasPrefix("BR") { return .lithiumManganese }
        if upper.hasPrefix("ER") || upper.hasPrefix("LS") { return .lithiumThionylChloride }
        if upper.hasPrefix("LR") || upper == "AA" || upper == "AAA" || upper.contains("ALKALINE") { return .alkaline }
        return .unknown
    }

    /// Whether a voltage trend of this chemistry stays flat until close to the end.
    public var holdsVoltageUntilTheEnd: Bool {
        chemistry == .lithiumManganese || chemistry == .lithiumThionylChloride
    }
}
