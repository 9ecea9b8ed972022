import Testing
@testable import BeaconCore

@Suite("Measured-power calibration")
struct CalibrationTests {
    @Test func trimsTenPercentAtEachEnd() throws {
        // 20 samples: two absurd outliers at each end are dropped, the rest average to −60.
        let samples: [Double] = [-95, -90] + Array(repeating: -61, count: 8) + Array(repeating: -59, count: 8) + [-30, -20]
        let estimate = try #require(Calibration.estimate(samples: samples))
        #expect(estimate.sampleCount == 20)
        #expect(estimate.keptCount == 16)
        #expect(estimate.mean == -60)
        #expect(estimate.measuredPower == -60)
        #expect(estimate.warnings.isEmpty)
        #expect(abs(estimate.standardDeviation - 1.0328) < 1e-3)
        #expect(abs(estimate.confidenceHalfWidth - 1.96 * estimate.standardDeviation / 4) < 1e-9)
    }

    @Test func warnsAboutTooFewSamplesAndWideSpread() throws {
        let few = try #require(Calibration.estimate(samples: [-60, -61, -59]))
        #expect(few.warnings.count == 1)
        #expect(few.warnings[0].hasPrefix("only 3 samples"))
        let wide = try #require(Calibration.estimate(samples: (0..<20).map { Double($0 % 2 == 0 ? -45 : -75) }))
        // 8 samples at −45 and 8 at −75 survive trimming: s = 15·√(16/15) ≈ 15.5 dB.
        #expect(wide.warnings.count == 1)
        #expect(wide.warnings[0].contains("spread is 15.5 dB"))
    }

    @Test func ignoresUnusableSamplesAndClampsTheByte() throws {
        #expect(Calibration.estimate(samples: []) == nil)
        #expect(Calibration.estimate(samples: [.nan, 127, 0]) == nil)
        let strong = try #require(Calibration.estimate(samples: Array(repeating: -0.4, count: 12)))
        #expect(strong.measuredPower == -1)
    }
}
