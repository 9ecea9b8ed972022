import BeaconCore
import Foundation
import Testing

@testable import BeaconFleet

@Suite("The calibration walk's fit, without the command line")
struct CalibrationWalkTests {
    static let identity = BeaconIdentity(uuid: testUUID, major: 1, minor: 2)

    /// A spot `distance` metres from the beacon, heard `count` times by `receiver` at the level
    /// a path-loss exponent of `exponent` gives (−59 dBm at 1 m), ±1 dB alternately.
    static func spot(
        _ distance: Double, exponent: Double = 2.5, count: Int = 20, receiver: String = "pi-1:hci0", measuredPower: Int8 = -59
    ) -> CalibrationWalk.Spot {
        var sampler = CalibrationSampler(identity: identity)
        let level = -59 - 10 * exponent * log10(distance)
        for index in 0..<count {
            sampler.add(Sighting(
                advertisement: IBeaconAdvertisement(identity: identity, measuredPower: measuredPower),
                address: BluetoothAddress("C0:00:00:00:00:01"), addressIsRandom: true,
                rssi: Int((level + (index % 2 == 0 ? 1 : -1)).rounded()), time: Double(index) * 0.1, clock: .elapsed, receiver: receiver))
        }
        return CalibrationWalk.Spot(distance: distance, sampler: sampler)
    }

    @Test("five spots on an exponent of 2.5: a profile of that receiver, place and time, its exponent near 2.5")
    func fitsTheWalk() throws {
        let walk = try CalibrationWalk(
            spots: [0.5, 1, 2, 3, 5].map { Self.spot($0) }, seconds: 10, place: "shop floor", fittedAt: "2026-01-01T00:00:00Z")
        #expect(walk.levels.map(\.distance) == [0.5, 1, 2, 3, 5])
        #expect(walk.receivers == ["pi-1:hci0"])
        #expect(walk.profile.receiver == "pi-1:hci0")
        #expect(walk.profile.place == "shop floor")
        #expect(walk.profile.fittedAt == "2026-01-01T00:00:00Z")
        #expect(abs(walk.fit.model.pathLossExponent - 2.5) < 0.2, "exponent \(walk.fit.model.pathLossExponent)")
    }

    @Test("spots heard by two receivers: both named, the profile after the first")
    func severalReceivers() throws {
        let walk = try CalibrationWalk(
            spots: [Self.spot(1, receiver: "pi-2:hci0"), Self.spot(3, receiver: "pi-1:hci0")], seconds: 10, place: "",
            fittedAt: "t")
        #expect(walk.receivers == ["pi-1:hci0", "pi-2:hci0"])
        #expect(walk.profile.receiver == "pi-1:hci0")
    }

    @Test("a spot with too few samples: the error names its distance")
    func tooFewSamples() {
        let error = #expect(throws: CalibrationWalkError.self) {
            try CalibrationWalk(spots: [Self.spot(1), Self.spot(2, count: 3)], seconds: 10, place: "", fittedAt: "t")
        }
        guard case .spot(let distance, .tooFewSamples) = error else {
            Issue.record("expected too few samples at a spot, got \(String(describing: error))")
            return
        }
        #expect(distance == 2)
    }

    @Test("a beacon heard nowhere: notHeard")
    func heardNowhere() {
        let silent = CalibrationWalk.Spot(distance: 1, sampler: CalibrationSampler(identity: Self.identity))
        let error = #expect(throws: CalibrationWalkError.self) {
            try CalibrationWalk(spots: [], seconds: 10, place: "", fittedAt: "t")
        }
        #expect(error?.description == "not heard on the walk")
        // A spot heard not at all fails as that spot first.
        #expect(throws: CalibrationWalkError.self) {
            try CalibrationWalk(spots: [silent], seconds: 10, place: "", fittedAt: "t")
        }
    }

    @Test("levels that do not fall with distance: no fit, and the levels come with the error")
    func noFit() {
        let error = #expect(throws: CalibrationWalkError.self) {
            try CalibrationWalk(spots: [Self.spot(1), Self.spot(1)], seconds: 10, place: "", fittedAt: "t")
        }
        guard case .noFit(let levels, _) = error else {
            Issue.record("expected no fit, got \(String(describing: error))")
            return
        }
        #expect(levels.count == 2)
    }
}
