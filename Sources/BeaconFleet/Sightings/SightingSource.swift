import BeaconCore
import Logging

/// Where a use case's sightings come from, opened: a live scan on a controller or a
/// recording being read (`SightingRecording`, a broker's stream included). `Origin` is the
/// same choice before it is opened, as the user named it; `with(_:logger:configure:_:)`
/// opens it for the length of a body, stopping and closing a live scan when it is done. What
/// a use case does in between differs (a recording runs on its receivers' clocks, a
/// controller on the scan's).
public enum SightingSource: Sendable {
    case live(LiveScan)
    case recording(SightingRecording)

    /// Where this source leaves the telemetry readings it hears beside its sightings, on
    /// the same clock and receiver as they: a use case takes them from here
    /// (`TelemetryInbox.take()`) as it judges.
    public var telemetry: TelemetryInbox {
        switch self {
        case .live(let scan): scan.telemetry
        case .recording(let recording): recording.telemetry
        }
    }

    /// A source as the user named it, not yet opened: a controller (`--hci`), a recording
    /// (`--input PATH`) or a broker (`--input mqtt://…`).
    public enum Origin: Sendable {
        case controller(ControllerConnection)
        /// A JSON-lines file or btsnoop, pcap or pcapng capture; `-` is standard input.
        case recording(path: String)
        /// What receivers publish to a broker (`--input mqtt://…`), read as it comes.
        case broker(BrokerSightings)
    }

    /// Starts scanning on the controller (`LiveScan.with`), or opens the recording and tells
    /// its format from its first bytes (waiting for them: run it under a deadline when a pipe
    /// may stay silent; cancelling the task ends the wait), and runs `body` on it. A source
    /// that cannot be opened throws its `SightingSourceError`; what `body` throws is rethrown
    /// as it is. `configure` adjusts a live scan.
    public static func with<Value>(
        _ origin: Origin, logger: Logger, configure: (inout ScanConfiguration) -> Void = { _ in },
        _ body: (SightingSource) async throws -> Value
    ) async throws -> Value {
        switch origin {
        case .controller(let connection):
            let scan: LiveScan
            do {
                scan = try await LiveScan.start(connection, logger: logger, configure: configure)
            } catch {
                throw SightingSourceError.controller(error)
            }
            return try await scan.closing { scan in try await body(.live(scan)) }
        case .recording(let path):
            let recording: SightingRecording
            do {
                recording = try await SightingRecording.open(path: path)
            } catch {
                throw SightingSourceError.recording(error)
            }
            // A recording needs no closing: it is read to its end or dropped.
            return try await body(.recording(recording))
        case .broker(let sightings):
            return try await body(.recording(.broker(sightings)))
        }
    }
}

/// Why a `SightingSource` could not be opened: the controller (exit status 3 on the command
/// line) or the recording (a usage or input error).
public enum SightingSourceError: Error, Sendable, CustomStringConvertible {
    case controller(LiveScanError)
    case recording(SightingStreamError)

    public var description: String {
        switch self {
        case .controller(let error): error.description
        case .recording(let error): error.description
        }
    }
}
