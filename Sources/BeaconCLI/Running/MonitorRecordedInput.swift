import BeaconCore
import BeaconFleet
import Logging

/// Reads a recorded sighting input (JSON lines or a btsnoop capture, `-` for standard
/// input) in order, for the commands that replay one: `monitor --input`, `calibrate --input`.
enum RecordedSightings {
    /// Calls `take` with each sighting until the input ends or `take` returns `false`.
    /// An unreadable or malformed input is a usage/input failure naming the line or
    /// record; a cancelled task ends it with `CancellationError`.
    /// `broker`, when the input is one, is read as its sightings come.
    static func read(_ path: String, broker: BrokerInput? = nil, logger: Logger, _ take: (Sighting) -> Bool) async throws {
        let recording: SightingInput
        if let broker {
            recording = broker.sightings
        } else {
            do {
                recording = try await SightingSources.open(path: path)
            } catch {
                throw CommandFailure(.usageOrInput, error.description)
            }
        }
        do {
            try await recording.forEach(take)
        } catch let error as SightingStreamError {
            throw CommandFailure(.usageOrInput, error.description)
        }
        if let truncation = recording.truncation {
            logger.warning("\(path): \(truncation); used what precedes it")
        }
        if let undecodable = recording.undecodableWarning { logger.warning("\(path): \(undecodable)") }
    }
}
