import Testing
@testable import BeaconCore

@Suite("Ranging maths")
struct RangingTests {
    @Test func distanceInvertsTheLogDistanceModel() throws {
        let model = PathLossModel(pathLossExponent: 2)
        #expect(try #require(model.distance(rssi: -59, measuredPower: -59)) == 1)
        #expect(abs(try #require(model.distance(rssi: -79, measuredPower: -59)) - 10) < 1e-9)
        let indoor = PathLossModel(pathLossExponent: 3)
        #expect(abs(try #require(indoor.distance(rssi: -89, measuredPower: -59)) - 10) < 1e-9)
        for distance in [0.3, 1, 2.5, 7, 20.0] {
            let rssi = indoor.expectedRSSI(atDistance: distance, measuredPower: -61)
            #expect(abs(try #require(indoor.distance(rssi: rssi, measuredPower: -61)) - distance) < 1e-9)
        }
    }

    @Test func refusesMeaninglessInputs() {
        let model = PathLossModel()
        #expect(model.distance(rssi: 127, measuredPower: -59) == nil)  // 127 = RSSI unavailable
        #expect(model.distance(rssi: -60, measuredPower: 0) == nil)
        #expect(model.distance(rssi: .nan, measuredPower: -59) == nil)
        #expect(PathLossModel(pathLossExponent: 0).distance(rssi: -60, measuredPower: -59) == nil)
    }

    @Test func clampsAbsurdDistances() {
        // A measured power of −3 (a misprogrammed byte) would put a −90 dBm beacon 22 km away.
        #expect(PathLossModel().distance(rssi: -90, measuredPower: -3) == 100)
    }

    @Test(arguments: [
        (0.1, Proximity.immediate), (0.49, .immediate), (0.5, .near), (2.99, .near),
        (3.0, .far), (40, .far),
    ])
    func classifiesByThreshold(distance: Double, expected: Proximity) {
        #expect(ProximityThresholds().classify(distance: distance) == expected)
    }

    @Test("an interval inside one class is that class; one across a threshold is unknown")
    func classifiesIntervals() {
        let thresholds = ProximityThresholds()
        #expect(thresholds.classify(interval: 0.1...0.49) == .immediate)
        #expect(thresholds.classify(interval: 0.5...2.99) == .near)
        #expect(thresholds.classify(interval: 3...40) == .far)
        #expect(thresholds.classify(interval: 0.4...0.6) == .unknown)
        #expect(thresholds.classify(interval: 1.2...3.6) == .unknown)
        #expect(thresholds.classify(interval: 0.2...5) == .unknown)
        #expect(thresholds.classify(interval: nil) == .unknown)
    }

    @Test("the interval: the data's ratios, widened in quadrature by the filter's spread, inside the bounds")
    func uncertaintyInterval() throws {
        let uncertainty = DistanceUncertainty()
        let plain = try #require(uncertainty.interval(around: 2, levelStandardError: 0, exponent: 3.5, bounds: 0.1...100))
        #expect(abs(plain.lowerBound - 1.44) < 1e-9 && abs(plain.upperBound - 4) < 1e-9)
        let spread = try #require(uncertainty.interval(around: 2, levelStandardError: 7, exponent: 3.5, bounds: 0.1...100))
        #expect(spread.lowerBound < plain.lowerBound && spread.upperBound > plain.upperBound)
        let closest = try #require(uncertainty.interval(around: 0.1, levelStandardError: 0, exponent: 3.5, bounds: 0.1...100))
        #expect(closest.lowerBound == 0.1 && abs(closest.upperBound - 0.2) < 1e-9)
        let farthest = try #require(uncertainty.interval(around: 100, levelStandardError: .nan, exponent: 3.5, bounds: 0.1...100))
        #expect(abs(farthest.lowerBound - 72) < 1e-9 && farthest.upperBound == 100)
        #expect(uncertainty.interval(around: .nan, levelStandardError: 0, exponent: 3.5, bounds: 0.1...100) == nil)
    }

    @Test func unknownWithoutAnEstimate() {
        #expect(ProximityThresholds().classify(distance: nil) == .unknown)
        #expect(ProximityThresholds().classify(distance: .infinity) == .unknown)
        #expect(Proximity.immediate < .near && Proximity.far < .unknown)
    }
}
