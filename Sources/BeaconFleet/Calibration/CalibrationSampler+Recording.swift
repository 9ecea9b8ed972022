import BeaconCore
import Logging

extension CalibrationSampler {
    /// The samples of `identity` in the first `seconds` of the recording at `path` (`-` for
    /// standard input), as `calibrate --input` and each spot of `calibrate --walk` take
    /// them. The recording's receivers are put on one clock (`SightingTimeline`, as every
    /// replay does), so that a recording of several receivers appended together is cut at
    /// `seconds` of that one clock rather than of whichever receiver comes first. A recording
    /// that cannot be opened or is malformed throws its `SightingStreamError`; cancelling the
    /// calling task ends the reading with `CancellationError`.
    public static func collect(
        _ identity: BeaconIdentity, fromRecording path: String, for seconds: Double, logger: Logger
    ) async throws -> CalibrationSampler {
        var collected = CalibrationSampler(identity: identity)
        var timeline = SightingTimeline()
        var start: Double?
        try await SightingRecording.read(path: path, logger: logger) { sighting in
            // A receiver on an elapsed clock beyond those told apart cannot be placed: skipped.
            guard let time = timeline.place(sighting)?.time else { return true }
            let first = start ?? time
            start = first
            guard time <= first + seconds else { return false }
            collected.add(sighting)
            return true
        }
        return collected
    }
}
