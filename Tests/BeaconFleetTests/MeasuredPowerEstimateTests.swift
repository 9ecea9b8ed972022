import BeaconCore
import FleetManifest
import Testing

@testable import BeaconFleet

@Suite("Measured power from TX power")
struct MeasuredPowerEstimateTests {
    @Test(
        "TX power − 41 dB, clamped to −127…−1",
        arguments: [
            (Int8(0), Int8(-41)), (-10, -51), (4, -37), (20, -21), (40, -1), (41, -1), (127, -1),
            (-86, -127), (-87, -127), (-127, -127), (-128, -127),
        ])
    func estimate(txPower: Int8, expected: Int8) {
        #expect(MeasuredPower.estimate(forTxPower: Int(txPower)) == expected)
    }

    @Test("a calibrated measured power is used as it is")
    func calibrated() {
        #expect(request(minor: 1, measuredPower: .dBm(-59)).measuredPower(advertisingAt: -10) == -59)
        #expect(request(minor: 1, measuredPower: .auto).measuredPower(advertisingAt: -10) == -51)
    }
}
