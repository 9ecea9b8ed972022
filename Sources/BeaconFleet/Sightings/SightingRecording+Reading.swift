import BeaconCore
import Logging

extension SightingRecording {
    /// Runs a pass over this recording (or broker stream) to its end, or until `reducer` is
    /// done: every sighting placed once on the pass's clock, the telemetry beside them handed
    /// over in order (`SightingPass`). A malformed recording throws its `SightingStreamError`
    /// naming the line or record; what was cut off or could not be decoded is logged as a
    /// warning naming it `name`. `configure` adjusts the pass (its queue, its drops).
    public func pass<Reducer: PassReducer>(
        _ reducer: inout Reducer, clocking: PassClocking, named name: String, logger: Logger, whatWasDone: String = "used",
        configure: (inout SightingPassSettings) -> Void = { _ in }
    ) async throws -> PassOutcome {
        announceUndeclaredUnixTime { logger.warning("\($0)") }
        var settings = SightingPassSettings()
        configure(&settings)
        let outcome: PassOutcome
        switch self {
        case .capture(let capture):
            outcome = try await SightingPass(capture, clocking: clocking, telemetry: telemetry, settings: settings).run(&reducer)
        case .jsonLines(let lines):
            outcome = try await SightingPass(lines, clocking: clocking, telemetry: telemetry, settings: settings).run(&reducer)
        case .broker(let sightings):
            outcome = try await SightingPass(sightings, clocking: clocking, telemetry: telemetry, settings: settings).run(&reducer)
        }
        if let truncation { logger.warning("\(name): \(truncation); \(whatWasDone) what precedes it") }
        if let undecodableWarning { logger.warning("\(name): \(undecodableWarning)") }
        return outcome
    }
}
