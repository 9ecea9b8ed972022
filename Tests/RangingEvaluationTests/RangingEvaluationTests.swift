import BeaconCore
import Foundation
import Testing
@testable import RangingEvaluation

@Suite("Ranging evaluated on recordings at known distances")
struct RangingEvaluationTests {
    /// datasets/herald-edison of this checkout.
    static let herald = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("datasets/herald-edison").path

    /// A recording whose RSSI follows `exponent` exactly around a 1 m level of −60 dBm,
    /// ±`spread` dB alternating, 60 s at each distance, one reading a second. No distance on
    /// a proximity-class boundary (0.5 m, 3 m), where either answer is as good.
    static func lawfulRecording(exponent: Double, spread: Double = 2) -> DistanceRecording {
        var samples: [DistanceRecording.Sample] = []
        var time = 0.0
        for distance in [0.7, 1, 1.5, 2, 2.5] {
            let mean = PathLossModel(pathLossExponent: exponent).expectedRSSI(atDistance: distance, measuredPower: -60)
            for second in 0..<60 {
                let rssi = Int((mean + (second.isMultiple(of: 2) ? spread : -spread)).rounded())
                samples.append(.init(time: time, rssi: rssi, distance: distance))
                time += 1
            }
        }
        return DistanceRecording(name: "lawful", receiver: "test", place: "test", samples: samples)
    }

    @Test("a recording file is parsed, CRLF and a blank last line included")
    func parses() throws {
        let recording = try DistanceRecording.parse(
            csv: "seconds,rssi,distance_cm\r\n0,-60,100\r\n1,-61,100\n2,-70,250\n\n", name: "r", receiver: "a hears b", place: "p")
        #expect(recording.samples.count == 3)
        #expect(recording.distances == [1, 2.5])
        #expect(recording.samples(at: 2.5) == [.init(time: 2, rssi: -70, distance: 2.5)])
    }

    @Test(
        "malformed recordings are refused with the line and what was expected",
        arguments: [
            ("", "no samples"),
            ("time,rssi\n0,-60", "line 1 is `time,rssi`"),
            ("seconds,rssi,distance_cm\n0,-60", "line 2 is `0,-60`"),
            ("seconds,rssi,distance_cm\n0,-60,100\nx,-60,100", "line 3 is `x,-60,100`"),
            ("seconds,rssi,distance_cm\n0,-200,100", "an RSSI of −127…20 dBm"),
            ("seconds,rssi,distance_cm\n0,-60,-5", "line 2"),
            ("seconds,rssi,distance_cm\n99999999999999999999999,-60,100", "line 2"),
            ("seconds,rssi,distance_cm\n0,-60,100,7", "line 2"),
            ("seconds,rssi,distance_cm\n", "no samples"),
        ])
    func malformed(text: String, message: String) {
        do {
            _ = try DistanceRecording.parse(csv: text, name: "bad.csv", receiver: "r", place: "p")
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.description.hasPrefix("bad.csv: "))
            #expect(error.description.contains(message), "\(error.description)")
        }
    }

    @Test("a missing dataset folder says what to pass")
    func missingFolder() {
        #expect(throws: DistanceRecording.ParseError.self) { try HeraldRecordings.load(directory: "/nonexistent/herald") }
    }

    @Test("the peers' curves as published: at the 1 m level both give about a metre")
    func peerCurves() throws {
        let android = try #require(EstimatorState.curve(rssi: -60, txPower: -60, 0.42093, 6.9476, 0.54992))
        #expect(abs(android - 0.97085) < 1e-4)
        let homeAssistant = try #require(EstimatorState.curve(rssi: -60, txPower: -60, 0.89976, 7.7095, 0.111))
        #expect(abs(homeAssistant - 1.01076) < 1e-4)
        // Louder than the 1 m level: ratio^10.
        let near = try #require(EstimatorState.curve(rssi: -54, txPower: -60, 0.42093, 6.9476, 0.54992))
        #expect(abs(near - pow(0.9, 10)) < 1e-9)
    }

    @Test("where the air follows the law, beaconctl's estimate is right and the evaluation says so")
    func lawfulAirIsRangedRight() throws {
        let evaluation = try #require(RecordingEvaluation(
            recording: Self.lawfulRecording(exponent: 2),
            estimators: [.beaconctl(name: "beaconctl", configuration: RangingConfiguration()), .androidBeaconLibrary]))
        #expect(evaluation.measuredPower == -60)
        let ours = ErrorSummary(evaluation.errors[0])
        // Whole-dBm readings: half a dB of rounding is 6 % of the distance at n = 2.
        #expect(try #require(ours.median) < 0.15)
        #expect(ours.classAccuracy == 1)
        // Every estimator judged at the same instants: after the slowest window (20 s).
        #expect(evaluation.errors[0].map(\.instants) == evaluation.errors[1].map(\.instants))
        #expect(evaluation.errors[0].allSatisfy { $0.instants == 40 })
    }

    @Test("a profile fitted on a lawful recording of another exponent recovers it")
    func profileFromRecordings() throws {
        let profile = try #require(RecordingProfiles.fit([Self.lawfulRecording(exponent: 3)], receiver: "test", place: "test")).get()
        #expect(abs(profile.pathLossExponent - 3) < 0.1)
        #expect(abs(profile.rssiOffset) < 0.5)
    }

    @Test("on the Herald recordings, a profile fitted on one recording lowers the error on another of the same receiver and place")
    func heldOutProfileLowersTheError() throws {
        let recordings = try HeraldRecordings.load(directory: Self.herald)
        #expect(recordings.count == 29)
        var without: [RecordingEvaluation.Errors] = []
        var with: [RecordingEvaluation.Errors] = []
        var pairs = 0
        for recording in recordings {
            guard let other = recordings.first(where: {
                $0.name != recording.name && $0.receiver == recording.receiver && $0.place == recording.place
            }) else { continue }
            let profile = try #require(RecordingProfiles.fit([other], receiver: other.receiver, place: other.place)).get()
            let base = RangingConfiguration()
            let evaluation = try #require(RecordingEvaluation(recording: recording, estimators: [
                .beaconctl(name: "without", configuration: base), .beaconctl(name: "with", configuration: base.applying(profile)),
            ]))
            without += evaluation.errors[0]
            with += evaluation.errors[1]
            pairs += 1
        }
        #expect(pairs >= 6)
        let before = try #require(ErrorSummary(without).median)
        let after = try #require(ErrorSummary(with).median)
        #expect(after < before * 0.9, "median error \(before) m without a profile, \(after) m with one")
    }
}
