import Testing
@testable import BeaconCore

@Suite("RSSI filter")
struct RSSIFilterTests {
    @Test func trimsTheOutliersAtBothEnds() throws {
        // Ten readings: eight at −60, one 25 dB fade and one 10 dB spike. 40 % of ten is
        // four samples at each end: both outliers go, −60 remains.
        var filter = RSSIFilter()
        let readings: [Double] = [-60, -60, -85, -60, -60, -50, -60, -60, -60, -60]
        for (index, rssi) in readings.enumerated() { filter.add(rssi, at: .seconds(Double(index) * 0.1)) }
        #expect(try #require(filter.value(at: .seconds(0.9))) == -60)
        // The plain mean would have followed the fade.
        #expect(RSSIFilter.trimmedMean(readings, trimFraction: 0) == -61.5)
    }

    @Test func fewSamplesKeepTheirMiddle() throws {
        // Three samples: 40 % of three rounds down to one dropped at each end.
        var filter = RSSIFilter()
        for (index, rssi) in [-70.0, -60, -65].enumerated() { filter.add(rssi, at: .seconds(Double(index))) }
        #expect(try #require(filter.value(at: .seconds(2))) == -65)
        // Two: none dropped, the plain mean.
        var pair = RSSIFilter()
        pair.add(-70, at: .seconds(0))
        pair.add(-60, at: .seconds(1))
        #expect(try #require(pair.value(at: .seconds(1))) == -65)
    }

    @Test("after a step in the level the estimate holds, then settles at the stated settling time",
          arguments: [RSSIFilter.Configuration(), .init(window: .seconds(10), maximumSamples: 100, trimFraction: 0.1), .init(window: .seconds(5), maximumSamples: 50, trimFraction: 0.25)])
    func settlesAfterAStep(configuration: RSSIFilter.Configuration) throws {
        // 10 Hz at −60 dBm for a full window, then the receiver moves: −70 dBm from t = 0.
        var filter = RSSIFilter(configuration: configuration)
        let window = configuration.window.instantSeconds
        for index in stride(from: -Int(window * 10), to: 0, by: 1) { filter.add(-60, at: .seconds(Double(index) / 10)) }
        var settledAt: Double?
        var leftOldLevelAt: Double?
        for index in 0..<Int(window * 10) + 20 {
            let time = Double(index) / 10
            filter.add(-70, at: .seconds(time))
            let value = try #require(filter.value(at: .seconds(time)))
            if leftOldLevelAt == nil && value < -60.001 { leftOldLevelAt = time }
            if settledAt == nil && value <= -69.999 { settledAt = time }
            if let settledAt { #expect(value <= -69.999, "back off the new level at \(time) s after settling at \(settledAt) s") }
        }
        let settled = try #require(settledAt)
        // Within one sample period of the stated settling time, never before it.
        #expect(settled >= configuration.settlingTime.instantSeconds - 0.15)
        #expect(settled <= configuration.settlingTime.instantSeconds + 0.15)
        // Until the new samples outnumber the trimmed end, the estimate does not move at all.
        let moved = try #require(leftOldLevelAt)
        #expect(moved >= configuration.trimFraction * window - 0.15)
    }

    @Test func forgetsSamplesOlderThanTheWindow() throws {
        var filter = RSSIFilter(configuration: .init(window: .seconds(2), maximumSamples: 100, trimFraction: 0))
        filter.add(-90, at: .seconds(0))
        filter.add(-90, at: .seconds(0.5))
        filter.add(-60, at: .seconds(2.2))
        filter.add(-62, at: .seconds(2.4))
        // At 2.4 the window starts at 0.4: the reading at 0 is gone, the one at 0.5 stays.
        #expect(try #require(filter.value(at: .seconds(2.4))) == (-90 - 60 - 62) / 3)
        // Asked later, without new samples, the old ones drop out too.
        #expect(try #require(filter.value(at: .seconds(3.0))) == -61)
        #expect(filter.value(at: .seconds(10)) == nil)
        filter.expire(at: .seconds(10))
        #expect(filter.sampleCount == 0)
    }

    @Test func keepsOnlyTheNewestSamplesBeyondTheCap() throws {
        var filter = RSSIFilter(configuration: .init(window: .seconds(100), maximumSamples: 3, trimFraction: 0))
        for (index, rssi) in [-90.0, -90, -60, -61, -62].enumerated() { filter.add(rssi, at: .seconds(Double(index))) }
        #expect(filter.sampleCount == 3)
        #expect(try #require(filter.value(at: .seconds(4))) == -61)
    }

    @Test func ignoresReadingsAfterTheTimeAsked() throws {
        var filter = RSSIFilter()
        filter.add(-60, at: .seconds(1))
        filter.add(-80, at: .seconds(2))
        #expect(try #require(filter.value(at: .seconds(1.5))) == -60)
    }

    @Test func ignoresNonFiniteInputAndClampsBadConfiguration() throws {
        var filter = RSSIFilter(configuration: .init(window: .seconds(-1), maximumSamples: 0, trimFraction: 7))
        #expect(filter.configuration.window > .zero)
        #expect(filter.configuration.maximumSamples == 1)
        #expect(filter.configuration.trimFraction < 0.5)
        #expect(!RSSIFilter.Configuration(window: .zero).isValid)
        filter.add(.nan, at: .origin)
        #expect(filter.sampleCount == 0)
        #expect(filter.value(at: .seconds(0)) == nil)
    }

    @Test func compactsStorageOnALongRun() throws {
        // An hour at 10 Hz: memory stays bounded and the value stays right.
        var filter = RSSIFilter()
        for tick in 0..<36_000 { filter.add(tick % 2 == 0 ? -60 : -62, at: .seconds(Double(tick) / 10)) }
        #expect(filter.sampleCount == 100)
        #expect(try #require(filter.value(at: .seconds(3599.9))) == -61)
    }

    @Test func trimmedMeanBeatsThePlainMeanUnderDeepFades() throws {
        // A beacon whose true RSSI is −65: noise of ±2 dB, and one packet in ten caught in
        // a 20 dB fade. Deterministic pattern, 100 samples.
        var samples: [Double] = []
        for index in 0..<100 {
            let noise = Double(index % 5) - 2
            samples.append(index % 10 == 3 ? -85 : -65 + noise)
        }
        let plain = try #require(RSSIFilter.trimmedMean(samples, trimFraction: 0))
        let trimmed = try #require(RSSIFilter.trimmedMean(samples, trimFraction: 0.1))
        #expect(abs(plain + 65) > 1.5)
        #expect(abs(trimmed + 65) < abs(plain + 65) / 2)
    }
}
