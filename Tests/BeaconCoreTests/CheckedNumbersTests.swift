import BeaconCore
import Testing

/// The one rule for numbers from outside: conversions that answer nil or saturate, never trap.
@Suite("Checked number conversions")
struct CheckedNumbersTests {
    @Test(arguments: [Double.nan, .infinity, -.infinity, 1e17 * 1000, -1e300, 9.3e18])
    func outOfRangeIsNil(value: Double) {
        #expect(Int64(checked: value) == nil)
        #expect(Int(checked: value) == nil)
    }

    @Test func inRangeRounds() {
        #expect(Int(checked: 2.5) == 3)
        #expect(Int(checked: -2.5) == -3)
        #expect(Int(checked: 2.5, rounding: .down) == 2)
        #expect(UInt8(checked: 255.4) == 255)
        #expect(UInt8(checked: 255.6) == nil)
        #expect(Int8(checked: -128) == -128)
    }

    @Test func saturating() {
        #expect(Int64(saturating: 1e300) == .max)
        #expect(Int64(saturating: -1e300) == .min)
        #expect(Int64(saturating: .nan) == 0)
        #expect(Int8(saturating: -200) == -128)
        #expect(Int(saturating: 12.4) == 12)
    }

    @Test func durations() {
        #expect(Duration(checkedSeconds: 1.5) == .milliseconds(1500))
        #expect(Duration(checkedSeconds: 0) == .zero)
        #expect(Duration(checkedSeconds: 1e9) == .longestAccepted)
        for bad in [1e16, 1e9 + 1, -1, .nan, .infinity] {
            #expect(Duration(checkedSeconds: bad) == nil, "\(bad)")
        }
        #expect(Duration.milliseconds(1500).secondsValue == 1.5)
    }
}
