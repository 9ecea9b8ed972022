/// An advertising interval, counted in the controller's unit of 0.625 ms
/// (Core v5.4 Vol 4 Part E 7.8.5 and 7.8.53).
///
/// Legacy advertising takes 0x0020–0x4000 (20 ms – 10.24 s) in 2 octets; extended
/// advertising takes 0x000020–0xFFFFFF in 3 octets. A value always lies in the wider range;
/// `LESetAdvertisingParameters` checks the legacy one.
public struct AdvertisingInterval: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The value in 0.625 ms units, as sent to the controller.
    public let units: UInt32

    public static let microsecondsPerUnit: UInt32 = 625
    /// Every value the extended command can carry.
    public static let validUnits: ClosedRange<UInt32> = 0x0020...0xFF_FFFF
    /// The range of LE Set Advertising Parameters.
    public static let legacyUnits: ClosedRange<UInt32> = 0x0020...0x4000
    /// Below 100 ms, Core versions before 5.0 forbid non-connectable and scannable
    /// advertising, and older controllers still refuse it.
    public static let legacyNonConnectableMinimumUnits: UInt32 = 0x00A0

    /// `nil` outside 0x000020–0xFFFFFF.
    public init?(units: UInt32) {
        guard Self.validUnits.contains(units) else { return nil }
        self.units = units
    }

    /// Rounds to the nearest 0.625 ms unit, e.g. 100 ms → 160 units.
    public init(milliseconds: Double) throws(HCIParameterError) {
        guard let units = unitsOf625Microseconds(milliseconds, within: Self.validUnits) else {
            throw HCIParameterError("advertising interval \(milliseconds) ms is outside 20 ms to 10485759.375 ms")
        }
        self.units = units
    }

    /// The iBeacon convention: 100 ms.
    public static let beaconDefault = AdvertisingInterval(constant: 160)

    /// For constants written in this file, which are inside `validUnits` by inspection.
    private init(constant units: UInt32) {
        self.units = units
    }

    public var milliseconds: Double { Double(microseconds) / 1000 }
    public var microseconds: UInt64 { UInt64(units) * UInt64(Self.microsecondsPerUnit) }
    public var isLegacyCompatible: Bool { Self.legacyUnits.contains(units) }

    /// `100 ms`, `152.5 ms`.
    public var description: String { millisecondsText(microseconds: microseconds) }

    public static func < (lhs: AdvertisingInterval, rhs: AdvertisingInterval) -> Bool {
        lhs.units < rhs.units
    }
}

/// A scan interval or scan window, counted in 0.625 ms units
/// (Core v5.4 Vol 4 Part E 7.8.10 and 7.8.64).
///
/// Legacy scanning takes 0x0004–0x4000 (2.5 ms – 10.24 s); extended scanning takes
/// 0x0004–0xFFFF. A value always lies in the wider range.
public struct ScanInterval: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The value in 0.625 ms units, as sent to the controller.
    public let units: UInt16

    public static let validUnits: ClosedRange<UInt16> = 0x0004...0xFFFF
    public static let legacyUnits: ClosedRange<UInt16> = 0x0004...0x4000

    /// `nil` outside 0x0004–0xFFFF.
    public init?(units: UInt16) {
        guard Self.validUnits.contains(units) else { return nil }
        self.units = units
    }

    /// Rounds to the nearest 0.625 ms unit.
    public init(milliseconds: Double) throws(HCIParameterError) {
        guard let units = unitsOf625Microseconds(milliseconds, within: Self.validUnits) else {
            throw HCIParameterError("scan interval or window \(milliseconds) ms is outside 2.5 ms to 40959.375 ms")
        }
        self.units = units
    }

    /// 60 ms (96 units): what an LE central scans with, window equal, while connecting.
    public static let connecting = ScanInterval(constant: 96)

    private init(constant units: UInt16) {
        self.units = units
    }

    public var milliseconds: Double { Double(microseconds) / 1000 }
    public var microseconds: UInt64 { UInt64(units) * UInt64(AdvertisingInterval.microsecondsPerUnit) }
    public var isLegacyCompatible: Bool { Self.legacyUnits.contains(units) }
    public var description: String { millisecondsText(microseconds: microseconds) }

    public static func < (lhs: ScanInterval, rhs: ScanInterval) -> Bool {
        lhs.units < rhs.units
    }
}

/// `milliseconds` in 0.625 ms units, rounded to the nearest; `nil` when not finite or
/// outside `range`.
private func unitsOf625Microseconds<Units: FixedWidthInteger>(_ milliseconds: Double, within range: ClosedRange<Units>) -> Units? {
    guard milliseconds.isFinite else { return nil }
    let units = (milliseconds * 1000 / Double(AdvertisingInterval.microsecondsPerUnit)).rounded()
    guard units >= Double(range.lowerBound), units <= Double(range.upperBound) else { return nil }
    return Units(units)
}
