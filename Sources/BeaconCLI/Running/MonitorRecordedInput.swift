import BeaconCore
import BeaconFleet
import Logging

/// Reads a recorded sighting input (JSON lines or a btsnoop capture, `-` for standard
/// input) in order, for the commands that replay one: `monitor --input`, `calibrate --input`.
enum RecordedSightings {
    /// Calls `take` with each sighting until the input ends or `take` returns `false`.
    /// An unreadable or malformed input is a usage/input failure naming the line or
    /// record; a cancelled task ends it with `CancellationError`.
    static func read(_ path: String, logger: Logger, _ take: (Sighting) -> Bool) async throws {
        let recording: SightingInput
        do {
            recording = try await SightingSources.open(path: path)
        } catch {
            throw CommandFailure(.usageOrInput, error.description)
        }
        switch recording {
        case .capture(let capture):
            try await read(capture, take)
            if let truncation = capture.summary.values?.truncation {
                logger.warning("\(path): \(truncation); used what precedes it")
            }
        case .jsonLines(let sightings):
            try await read(sightings, take)
        }
    }

    private static func read<Sightings: AsyncSequence<Sighting, any Error>>(
        _ sightings: Sightings, _ take: (Sighting) -> Bool
    ) async throws {
        do {
            for try await sighting in sightings {
                if !take(sighting) { return }
            }
        } catch let error as SightingStreamError {
            throw CommandFailure(.usageOrInput, error.description)
        }
        // Cancelled: the stream ended early; what was read is partial, and callers must know.
        try Task.checkCancellation()
    }
}
