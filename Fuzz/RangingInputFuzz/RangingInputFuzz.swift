import BeaconCore
import Foundation
import RangingEvaluation

/// libFuzzer entry: the two inputs of ranging that come from files — a recording at known
/// distances (`seconds,rssi,distance_cm`) and a receiver profile (JSON) — and what is done
/// with them: every estimator run over the recording, ranging with the profile. Checks that
/// no input crashes, that a refused one says why, and that a profile `problem` accepts
/// ranges to a finite distance or none.
///
/// Byte 0 even: the rest is a recording; odd: the rest is a profile.
/// Built by scripts/fuzz.sh; not part of the SwiftPM package.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRangingInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let selector = bytes.first else { return 0 }
    let body = Array(bytes.dropFirst())
    if selector % 2 == 0 {
        let text = String(decoding: body, as: UTF8.self)
        do {
            let recording = try DistanceRecording.parse(csv: text, name: "fuzz.csv", receiver: "fuzz", place: "fuzz")
            let estimators: [DistanceEstimator] = [
                .beaconctl(name: "beaconctl", configuration: RangingConfiguration()),
                .logDistance(exponent: 2, window: 10), .androidBeaconLibrary, .homeAssistant, .constant(metres: 1.5),
            ]
            if let evaluation = RecordingEvaluation(recording: recording, estimators: estimators) {
                for errors in evaluation.errors.joined() where errors.absoluteErrors.contains(where: { !$0.isFinite || $0 < 0 }) {
                    fatalError("a non-finite or negative error at \(errors.distance) m")
                }
                // beaconctl's intervals: no more held the truth than were given, every ratio finite.
                for errors in evaluation.errors.joined()
                where errors.covered > errors.intervals || errors.logRatios.contains(where: { !$0.isFinite }) {
                    fatalError("an interval count or ratio out of bounds at \(errors.distance) m")
                }
            }
            _ = RecordingProfiles.fit([recording], receiver: "fuzz", place: "fuzz")
        } catch {
            precondition(error.description.hasPrefix("fuzz.csv: "), "an error that does not name the file: \(error)")
        }
    } else {
        guard let profile = try? JSONDecoder().decode(RangingProfile.self, from: Data(body)) else { return 0 }
        guard profile.problem == nil else { return 0 }
        let configuration = RangingConfiguration().applying(profile)
        for rssi in stride(from: -127.0, through: 20, by: 7) {
            if let distance = configuration.distanceModel.distance(rssi: rssi, measuredPower: -59 + configuration.measuredPowerOffset) {
                precondition(distance.isFinite && distance >= 0, "distance \(distance) for \(rssi) dBm")
            }
        }
    }
    return 0
}
