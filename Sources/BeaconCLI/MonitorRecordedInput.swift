import BeaconCore
import BeaconFleet
import Logging

/// Reads a recorded sighting input (JSON lines or a btsnoop capture, `-` for standard
/// input) in order, for the commands that replay one: `monitor --input`, `calibrate --input`.
enum RecordedSightings {
    /// Calls `take` with each sighting until the input ends or `take` returns `false`.
    /// An unreadable or malformed input is a usage/input failure naming the line.
    static func read(_ path: String, logger: Logger, _ take: (Sighting) -> Bool) async throws {
        let recording: SightingInput
        do {
            recording = try await SightingSources.open(path: path)
        } catch {
            throw CommandFailure(.usageOrInput, error.description)
        }
        switch recording {
        case .capture(let capture):
            if let truncation = capture.truncation {
                logger.warning("\(path): \(truncation); using what precedes it")
            }
            for sighting in capture.sightings {
                if Task.isCancelled || !take(sighting) { return }
            }
        case .jsonLines(let sightings):
            do {
                for try await sighting in sightings {
                    if Task.isCancelled || !take(sighting) { return }
                }
            } catch let error as SightingStreamError {
                throw CommandFailure(.usageOrInput, error.description)
            }
        }
    }
}
