import BeaconCore
import Testing
@testable import VirtualRadio

#if canImport(Glibc)
import Glibc
#endif

@Suite("Shadowing fixed at a spot and fading per channel")
struct SpatialFadingTests {
    let beacon = PlanPoint(x: 0, y: 0)

    /// Spots on a 40 × 40 m grid 5 m apart: far beyond the correlation distance, so they
    /// sample the field's distribution.
    var farSpots: [PlanPoint] {
        (0..<400).map { PlanPoint(x: Double($0 % 20) * 5 + 1, y: Double($0 / 20) * 5 + 1) }
    }

    static func statistics(_ values: [Double]) -> (mean: Double, deviation: Double) {
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
        return (mean, variance.squareRoot())
    }

    @Test("the same spot gives the same offset; the same seed the same room")
    func sameSpotSameOffset() {
        let room = SpatialShadowing(sigma: 6, seed: 7)
        let spot = PlanPoint(x: 2.5, y: 1)
        #expect(room.offset(from: beacon, to: spot) == room.offset(from: beacon, to: spot))
        #expect(room.offset(from: beacon, to: spot) == SpatialShadowing(sigma: 6, seed: 7).offset(from: beacon, to: spot))
        #expect(room.offset(from: beacon, to: spot) != SpatialShadowing(sigma: 6, seed: 8).offset(from: beacon, to: spot))
        // And no packet-by-packet variation: a model with only spatial shadowing draws the
        // same RSSI at one spot every time.
        let model = PropagationModel(environment: RadioEnvironment(), spatialShadowing: room)
        var generator = SeededGenerator(seed: 1)
        let readings = Set((0..<50).compactMap { _ in model.sampleRSSI(txPower: 0, from: beacon, to: spot, using: &generator) })
        #expect(readings.count == 1)
    }

    @Test("spatial shadowing has the configured spread and no bias over a room")
    func spatialSpread() {
        let room = SpatialShadowing(sigma: 4, correlationDistance: 1.5, seed: 11)
        let (mean, deviation) = Self.statistics(farSpots.map { room.offset(from: beacon, to: $0) })
        #expect(abs(mean) < 0.8, "mean \(mean)")
        #expect(abs(deviation - 4) < 0.8, "deviation \(deviation)")
    }

    @Test("nearby spots are alike, distant ones independent")
    func correlationFallsWithDistance() {
        let room = SpatialShadowing(sigma: 1, correlationDistance: 1.5, seed: 3)
        func correlation(step: Double) -> Double {
            let pairs = farSpots.map { spot in
                (room.offset(from: beacon, to: spot), room.offset(from: beacon, to: PlanPoint(x: spot.x + step, y: spot.y)))
            }
            let a = Self.statistics(pairs.map(\.0))
            let b = Self.statistics(pairs.map(\.1))
            let covariance = pairs.reduce(0) { $0 + ($1.0 - a.mean) * ($1.1 - b.mean) } / Double(pairs.count)
            return covariance / (a.deviation * b.deviation)
        }
        // exp(−r²/2L²): 0.2 m → 0.99, 1.5 m → 0.61, 6 m → 0.0003.
        #expect(correlation(step: 0.2) > 0.9)
        #expect((0.35...0.85).contains(correlation(step: 1.5)))
        #expect(abs(correlation(step: 6)) < 0.25)
    }

    @Test("channel fading: each channel its own level, the mean power unchanged, nulls bounded")
    func channelFading() {
        let fading = ChannelFading(k: 0, seed: 5)
        let spot = PlanPoint(x: 3, y: 1)
        let levels = [UInt8(37), 38, 39].map { fading.offset(channel: $0, from: beacon, to: spot) }
        #expect(Set(levels).count == 3)
        #expect(fading.offset(channel: 38, from: beacon, to: spot) == levels[1])
        // Rayleigh (K = 0): E|h|² = 1, i.e. mean linear power 1 over many spots.
        let powers = farSpots.flatMap { spot in
            [UInt8(37), 38, 39].map { pow(10, fading.offset(channel: $0, from: beacon, to: spot) / 10) }
        }
        let meanPower = powers.reduce(0, +) / Double(powers.count)
        #expect(abs(meanPower - 1) < 0.15, "mean power \(meanPower)")
        let offsets = farSpots.map { fading.offset(channel: 37, from: beacon, to: $0) }
        #expect(offsets.allSatisfy { $0 >= ChannelFading.deepestFade })
        // Deep nulls happen: Rayleigh puts about 10 % of spots below −10 dB.
        let deep = Double(offsets.filter { $0 < -10 }.count) / Double(offsets.count)
        #expect((0.03...0.2).contains(deep), "share below −10 dB: \(deep)")
        // A strong direct path (K = 20) fades far less.
        let lineOfSight = ChannelFading(k: 20, seed: 5)
        let spread = Self.statistics(farSpots.map { lineOfSight.offset(channel: 37, from: beacon, to: $0) }).deviation
        #expect(spread < Self.statistics(offsets).deviation / 2)
    }

    @Test("fading decorrelates within centimetres: half a wavelength changes the level")
    func fadingDecorrelatesQuickly() {
        let fading = ChannelFading(k: 0, seed: 9)
        let differences = farSpots.map { spot in
            abs(fading.offset(channel: 37, from: beacon, to: spot)
                - fading.offset(channel: 37, from: beacon, to: PlanPoint(x: spot.x + 0.3, y: spot.y)))
        }
        let median = differences.sorted()[differences.count / 2]
        #expect(median > 2, "median change over 30 cm: \(median) dB")
    }

    @Test("the model adds shadowing and fading on the received channel")
    func modelUsesTheChannel() {
        let model = PropagationModel(
            environment: RadioEnvironment(), spatialShadowing: SpatialShadowing(sigma: 4, seed: 1),
            channelFading: ChannelFading(k: 1, seed: 2))
        var generator = SeededGenerator(seed: 3)
        let spot = PlanPoint(x: 2, y: 0)
        let perChannel = [UInt8(37), 38, 39].compactMap {
            model.sampleRSSI(txPower: 0, from: beacon, to: spot, channel: $0, using: &generator)
        }
        #expect(perChannel.count == 3)
        #expect(Set(perChannel).count == 3)
        let expected = model.environment.meanRSSI(txPower: 0, from: beacon, to: spot)
            + SpatialShadowing(sigma: 4, seed: 1).offset(from: beacon, to: spot)
            + ChannelFading(k: 1, seed: 2).offset(channel: 38, from: beacon, to: spot)
        #expect(abs(perChannel[1] - expected) < 1e-9)
    }
}
