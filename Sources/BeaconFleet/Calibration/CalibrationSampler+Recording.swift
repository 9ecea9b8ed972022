import BeaconCore
import Logging

extension CalibrationSampler {
    /// The samples of `identity` in the first `seconds` of the recording at `path` (`-` for
    /// standard input), as `calibrate --input` and each spot of `calibrate --walk` take
    /// them. The recording's receivers are put on one clock (`SightingPass`, as every pass
    /// does), so that a recording of several receivers appended together is cut at `seconds`
    /// of that one clock rather than of whichever receiver comes first. A recording that
    /// cannot be opened or is malformed throws its `SightingStreamError`; cancelling the
    /// calling task ends the reading with `CancellationError`.
    public static func collect(
        _ identity: BeaconIdentity, fromRecording path: String, for seconds: Double, logger: Logger
    ) async throws -> CalibrationSampler {
        var collection = RecordedCollection(sampler: CalibrationSampler(identity: identity), seconds: seconds)
        let outcome = try await SightingRecording.open(path: path).pass(
            &collection, clocking: .replay(origin: .firstSighting), named: path, logger: logger)
        if outcome.end == .interrupted { throw CancellationError() }
        return collection.sampler
    }

    /// The first `seconds` of a recording's clock, sampled: a reducer of the pass.
    struct RecordedCollection: PassReducer {
        var sampler: CalibrationSampler
        /// How long after the first sighting it samples; `nil` (NaN seconds): nothing.
        let span: Duration?
        var start: PassTime?

        init(sampler: CalibrationSampler, seconds: Double) {
            self.sampler = sampler
            // Beyond any pass time, as long as any.
            span = Duration(checkedSeconds: min(seconds, PassTime.acceptedSeconds.upperBound), within: PassTime.acceptedSeconds)
        }

        mutating func take(_ input: PassInput) -> PassStep {
            // A receiver on an elapsed clock beyond those told apart cannot be placed: skipped.
            guard case .sighting(let placed) = input, let time = placed.time else { return .more }
            let first = start ?? time
            start = first
            guard let span, time - first <= span else { return .done }
            sampler.add(placed.sighting)
            return .more
        }
    }
}
