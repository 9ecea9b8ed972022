/// The measured-power byte a beacon should carry, as the verification knows it.
public enum MeasuredPowerExpectation: Hashable, Sendable, CustomStringConvertible {
    /// The manifest gives a calibrated value.
    case calibrated(Int8)
    /// The manifest says `auto` and the advertiser reported the value it computed (from the
    /// TX power the controller selected), e.g. during `provision`.
    case advertised(Int8)
    /// The manifest says `auto` and nobody told us what was computed: any value a real
    /// beacon's 1 m RSSI can take is accepted.
    case plausible(ClosedRange<Int>)

    public func accepts(_ value: Int8) -> Bool {
        switch self {
        case .calibrated(let expected), .advertised(let expected): return value == expected
        case .plausible(let range): return range.contains(Int(value))
        }
    }

    /// The single expected value, when there is one.
    public var exactValue: Int8? {
        switch self {
        case .calibrated(let value), .advertised(let value): return value
        case .plausible: return nil
        }
    }

    public var description: String {
        switch self {
        case .calibrated(let value): return "\(value) dBm"
        case .advertised(let value): return "\(value) dBm (auto, as advertised)"
        case .plausible(let range): return "auto (any of \(range.lowerBound)…\(range.upperBound) dBm accepted)"
        }
    }
}
