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

    @Test func unknownWithoutAnEstimate() {
        #expect(ProximityThresholds().classify(distance: nil) == .unknown)
        #expect(ProximityThresholds().classify(distance: .infinity) == .unknown)
        #expect(Proximity.immediate < .near && Proximity.far < .unknown)
    }
}
