import BeaconCore
import Testing

@Suite("Fitting the path-loss law to a walk")
struct PathLossFitTests {
    /// Samples of a room with `exponent` and `oneMetre`, with deterministic ±`spread` dB
    /// scatter (alternating signs, so the scatter averages out at every distance).
    static func walk(exponent: Double, oneMetre: Double, spread: Double, perDistance: Int = 20) -> [(distance: Double, rssi: Double)] {
        let distances = [0.5, 1, 2, 3, 5]
        return distances.flatMap { distance in
            (0..<perDistance).map { index in
                let mean = PathLossModel(pathLossExponent: exponent).expectedRSSI(atDistance: distance, measuredPower: oneMetre)
                return (distance, mean + (index.isMultiple(of: 2) ? spread : -spread))
            }
        }
    }

    @Test("a known exponent and 1 m level are recovered", arguments: [(2.0, -59.0), (2.7, -63.0), (3.5, -52.0)])
    func recovers(exponent: Double, oneMetre: Double) throws {
        let fit = try PathLossFit(samples: Self.walk(exponent: exponent, oneMetre: oneMetre, spread: 3))
        #expect(abs(fit.model.pathLossExponent - exponent) < 0.01)
        #expect(abs(fit.oneMetreRSSI - oneMetre) < 0.05)
        #expect(abs(fit.rmsResidual - 3) < 0.01)
        #expect(fit.residuals.map(\.distance) == [0.5, 1, 2, 3, 5])
        #expect(fit.residuals.allSatisfy { abs($0.error) < 0.05 && $0.sampleCount == 20 })
    }

    @Test("a spot that breaks the law shows in its residual")
    func badSpotShows() throws {
        var samples = Self.walk(exponent: 2, oneMetre: -59, spread: 0)
        samples = samples.map { $0.distance == 3 ? ($0.distance, $0.rssi - 10) : $0 }
        let fit = try PathLossFit(samples: samples)
        let worst = try #require(fit.residuals.max { abs($0.error) < abs($1.error) })
        #expect(worst.distance == 3)
    }

    @Test("samples that cannot be fitted are refused with what to do")
    func refusals() {
        #expect(throws: PathLossFit.Failure.tooFewDistances(1)) { try PathLossFit(samples: [(1, -60), (1, -61)]) }
        #expect(throws: PathLossFit.Failure.invalidSample(distance: 0, rssi: -60)) { try PathLossFit(samples: [(0, -60), (1, -61)]) }
        #expect(throws: PathLossFit.Failure.self) { try PathLossFit(samples: [(1, .nan), (2, -61)]) }
        // RSSI rising with distance: the columns are mixed up.
        #expect(throws: PathLossFit.Failure.self) { try PathLossFit(samples: [(1, -70), (2, -60)]) }
    }
}
