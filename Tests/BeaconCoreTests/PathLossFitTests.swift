import BeaconCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Fitting the path-loss law to a walk")
struct PathLossFitTests {
    static let distances = [0.5, 1, 2, 3, 5]

    /// Samples of a room with `exponent` and `oneMetre`, with deterministic ±`spread` dB
    /// scatter (alternating signs, so the scatter averages out at every distance).
    static func walk(exponent: Double, oneMetre: Double, spread: Double, perDistance: Int = 20) -> [(distance: Double, rssi: Double)] {
        distances.flatMap { distance in
            (0..<perDistance).map { index in
                let mean = PathLossModel(pathLossExponent: exponent).expectedRSSI(atDistance: distance, measuredPower: oneMetre)
                return (distance, mean + (index.isMultiple(of: 2) ? spread : -spread))
            }
        }
    }

    /// A small deterministic normal generator (Box–Muller on a 64-bit LCG): the same
    /// levels on every machine.
    struct Normals {
        var state: UInt64

        mutating func uniform() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (Double(state >> 11) + 0.5) / Double(1 << 53)
        }

        mutating func next() -> Double {
            (-2 * log(uniform())).squareRoot() * cos(2 * Double.pi * uniform())
        }
    }

    @Test(
        "a known exponent and 1 m level are recovered, by either objective",
        arguments: [(2.0, -59.0), (2.7, -63.0), (3.5, -52.0)], [PathLossFit.Objective.distance, .rssi])
    func recovers(law: (exponent: Double, oneMetre: Double), objective: PathLossFit.Objective) throws {
        let fit = try PathLossFit(samples: Self.walk(exponent: law.exponent, oneMetre: law.oneMetre, spread: 3), objective: objective)
        #expect(abs(fit.model.pathLossExponent - law.exponent) < 0.01)
        #expect(abs(fit.oneMetreRSSI - law.oneMetre) < 0.05)
        // The ±3 dB packet scatter is inside each spot's level, not between spots.
        #expect(fit.rmsResidual < 0.05)
        #expect(fit.residuals.map(\.distance) == Self.distances)
        #expect(fit.residuals.allSatisfy { abs($0.error) < 0.05 && $0.sampleCount == 20 })
        #expect(fit.residuals.allSatisfy { abs($0.estimatedDistance - $0.distance) / $0.distance < 0.01 })
        #expect(fit.objective == objective)
    }

    @Test("the receiver's offset is recovered: a profile ranges the walk's own law back to its distances")
    func offsetRecovered() throws {
        // The receiver hears 4 dB below what the beacon's measured power (−59) promises.
        let fit = try PathLossFit(samples: Self.walk(exponent: 2.6, oneMetre: -63, spread: 2))
        let profile = RangingProfile(receiver: "hci0", place: "shop", fit: fit, referenceMeasuredPower: -59, fittedAt: "2026-01-01T00:00:00Z")
        #expect(abs(profile.rssiOffset - -4) < 0.05)
        #expect(abs(profile.pathLossExponent - 2.6) < 0.01)
        #expect(profile.problem == nil)
        let configuration = RangingConfiguration().applying(profile)
        for distance in [0.7, 1.5, 4.0] {
            let rssi = PathLossModel(pathLossExponent: 2.6).expectedRSSI(atDistance: distance, measuredPower: -63)
            let estimate = try #require(configuration.distanceModel.distance(
                rssi: rssi, measuredPower: -59 + configuration.measuredPowerOffset))
            #expect(abs(estimate - distance) / distance < 0.01, "at \(distance) m: \(estimate)")
        }
    }

    @Test("levels scattered by shadowing: the exponent is recovered within tolerance from many spots")
    func noisyLevelsRecoverTheExponent() throws {
        var normals = Normals(state: 42)
        var levels: [PathLossFit.Level] = []
        let truth = PathLossModel(pathLossExponent: 3.0)
        for distance in Self.distances {
            for _ in 0..<40 {
                let level = truth.expectedRSSI(atDistance: distance, measuredPower: -60) + 3 * normals.next()
                levels.append(PathLossFit.Level(distance: distance, rssi: level, sampleCount: 100))
            }
        }
        let forward = try PathLossFit(levels: levels, objective: .rssi)
        #expect(abs(forward.model.pathLossExponent - 3.0) < 0.2)
        #expect(abs(forward.oneMetreRSSI - -60) < 1)
        #expect(abs(forward.rmsResidual - 3) < 0.5)
        // The distance objective regresses distance on level: with scatter it steepens the
        // law (it shrinks the distance a stray level implies), by about 1 / R².
        let inverse = try PathLossFit(levels: levels, objective: .distance)
        #expect(inverse.model.pathLossExponent > forward.model.pathLossExponent)
        #expect(inverse.model.pathLossExponent < forward.model.pathLossExponent * 1.3)
        // One residual per spot, the same distance repeated.
        #expect(forward.residuals.count == 200)
    }

    @Test("a spot that breaks the law shows in its residual")
    func badSpotShows() throws {
        var samples = Self.walk(exponent: 2, oneMetre: -59, spread: 0)
        samples = samples.map { $0.distance == 3 ? ($0.distance, $0.rssi - 10) : $0 }
        // The RSSI objective: its residuals are the levels' distances from one line. (The
        // distance objective tilts the line towards the stray spot and spreads the blame.)
        let fit = try PathLossFit(samples: samples, objective: .rssi)
        let worst = try #require(fit.residuals.max { abs($0.error) < abs($1.error) })
        #expect(worst.distance == 3)
    }

    @Test("a level is the trimmed mean of its spot: a channel in a deep fade does not drag it")
    func levelIgnoresAFadedChannel() throws {
        // At each spot two thirds of the packets at the law's level, one third 20 dB down.
        let samples = Self.distances.flatMap { distance in
            (0..<30).map { index in
                let mean = PathLossModel(pathLossExponent: 2).expectedRSSI(atDistance: distance, measuredPower: -59)
                return (distance: distance, rssi: index % 3 == 2 ? mean - 20 : mean)
            }
        }
        let fit = try PathLossFit(samples: samples)
        #expect(abs(fit.model.pathLossExponent - 2) < 0.01)
        #expect(abs(fit.oneMetreRSSI - -59) < 0.05)
    }

    @Test("samples that cannot be fitted are refused with what to do")
    func refusals() {
        #expect(throws: PathLossFit.Failure.tooFewDistances(1)) { try PathLossFit(samples: [(1, -60), (1, -61)]) }
        #expect(throws: PathLossFit.Failure.invalidSample(distance: 0, rssi: -60)) { try PathLossFit(samples: [(0, -60), (1, -61)]) }
        #expect(throws: PathLossFit.Failure.self) { try PathLossFit(samples: [(1, .nan), (2, -61)]) }
        // RSSI rising with distance: the columns are mixed up.
        #expect(throws: PathLossFit.Failure.noTrend) { try PathLossFit(samples: [(1, -70), (2, -60)]) }
        #expect(throws: PathLossFit.Failure.noTrend) { try PathLossFit(samples: [(1, -60), (2, -60)]) }
        // 30 dB per doubling: n = 10, not a room.
        #expect(throws: PathLossFit.Failure.self) { try PathLossFit(samples: [(1, -60), (2, -90)]) }
        #expect(PathLossFit.Failure.noTrend.description.contains("0.5 m to 5 m"))
    }

    @Test("a profile that cannot be used says why")
    func implausibleProfiles() throws {
        var profile = RangingProfile(
            receiver: "hci0", fit: try PathLossFit(samples: Self.walk(exponent: 2, oneMetre: -59, spread: 0)),
            referenceMeasuredPower: -59, fittedAt: "")
        #expect(profile.problem == nil)
        profile.pathLossExponent = .nan
        #expect(profile.problem?.contains("path-loss exponent") == true)
        profile.pathLossExponent = 2
        profile.rssiOffset = 55
        #expect(profile.problem?.contains("offset") == true)
    }
}
