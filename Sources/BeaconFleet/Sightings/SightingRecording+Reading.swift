import BeaconCore
import Logging

extension SightingRecording {
    /// Opens the recording at `path` (`-` for standard input) and reads it to its end, or
    /// until `take` returns `false`, as `monitor --input` and `calibrate --input` do: only
    /// the reading, in order; placing sightings on one clock is the caller's
    /// (`SightingTimeline`). A recording that cannot be opened or is malformed throws its
    /// `SightingStreamError` naming the line or record; a cancelled task ends it with
    /// `CancellationError`. What was cut off or could not be decoded is logged as a warning.
    public static func read(path: String, logger: Logger, _ take: (Sighting) -> Bool) async throws {
        try await open(path: path).read(named: path, logger: logger, take)
    }

    /// Reads this recording (or broker stream) as `read(path:logger:_:)` does, its warnings
    /// naming it `name`.
    public func read(named name: String, logger: Logger, _ take: (Sighting) -> Bool) async throws {
        announceUndeclaredUnixTime { logger.warning("\($0)") }
        try await forEach(take)
        if let truncation { logger.warning("\(name): \(truncation); used what precedes it") }
        if let undecodableWarning { logger.warning("\(name): \(undecodableWarning)") }
    }
}
