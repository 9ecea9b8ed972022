import BeaconCore
import Testing
@testable import VirtualRadio

@Suite("Propagation model")
struct PropagationModelTests {
    let origin = PlanPoint(x: 0, y: 0)

    @Test func meanRSSIFollowsLogDistance() {
        let model = PropagationModel(pathLossExponent: 2)
        #expect(model.environment.meanRSSI(txPower: 0, from: origin, to: PlanPoint(x: 1, y: 0)) == -41)
        #expect(abs(model.environment.meanRSSI(txPower: 0, from: origin, to: PlanPoint(x: 6, y: 8)) - -61) < 1e-9)
        #expect(model.environment.measuredPower(txPower: -4) == -45)
    }

    @Test func obstaclesAttenuateOnlyPathsThatCrossThem() {
        let wall = Obstacle(from: PlanPoint(x: 5, y: -10), to: PlanPoint(x: 5, y: 10), attenuation: 12)
        let model = PropagationModel(obstacles: [wall])
        let free = PropagationModel()
        let through = PlanPoint(x: 8, y: 0)
        let before = PlanPoint(x: 4, y: 0)
        #expect(model.environment.meanRSSI(txPower: 0, from: origin, to: through) == free.environment.meanRSSI(txPower: 0, from: origin, to: through) - 12)
        #expect(model.environment.meanRSSI(txPower: 0, from: origin, to: before) == free.environment.meanRSSI(txPower: 0, from: origin, to: before))
    }

    @Test func shadowingHasTheConfiguredSpread() {
        let model = PropagationModel(shadowingSigma: 4)
        var generator = SeededGenerator(seed: 42)
        let receiver = PlanPoint(x: 2, y: 0)
        let samples = (0..<20_000).compactMap {
            _ in model.sampleRSSI(txPower: 0, from: origin, to: receiver, using: &generator)
        }
        let mean = samples.reduce(0, +) / Double(samples.count)
        let variance = samples.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(samples.count - 1)
        #expect(samples.count == 20_000)
        #expect(abs(mean - model.environment.meanRSSI(txPower: 0, from: origin, to: receiver)) < 0.1)
        #expect(abs(variance.squareRoot() - 4) < 0.1)
    }

    @Test func packetLossDropsTheConfiguredShare() {
        let model = PropagationModel(packetLoss: 0.3)
        var generator = SeededGenerator(seed: 7)
        let received = (0..<10_000).filter { _ in
            model.sampleRSSI(txPower: 0, from: origin, to: PlanPoint(x: 1, y: 1), using: &generator) != nil
        }.count
        #expect(abs(Double(received) / 10_000 - 0.7) < 0.02)
    }

    @Test func sameSeedSameSequence() {
        var a = SeededGenerator(seed: 2026)
        var b = SeededGenerator(seed: 2026)
        #expect((0..<100).map { _ in a.next() } == (0..<100).map { _ in b.next() })
    }

    @Test func belowSensitivityNothingIsHeard() {
        let model = PropagationModel(receiverSensitivity: -90)
        var generator = SeededGenerator(seed: 1)
        #expect(model.sampleRSSI(txPower: 0, from: origin, to: PlanPoint(x: 500, y: 0), using: &generator) == nil)
    }
}
