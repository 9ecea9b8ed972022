import BeaconCore
import Logging

/// Where a use case's sightings come from, as the user named it: a live controller
/// (`--hci`) or a recording (`--input`).
public enum SightingOrigin: Sendable {
    case controller(ControllerConnection)
    /// A JSON-lines file or btsnoop capture; `-` is standard input.
    case recording(path: String)
    /// What receivers publish to a broker (`--input mqtt://…`), read as it comes.
    case broker(BrokerSightings)
}

/// The sightings of a `SightingOrigin`, open: a scan running on a controller or a recording
/// being read. scan opens its input through `with(_:logger:configure:_:)`, which stops and
/// closes a live scan when it is done; what a use case does in between differs (a recording
/// runs on its own clock, a controller on the scan's).
public enum SightingSource: Sendable {
    case live(LiveScan)
    case recording(SightingInput)

    /// Starts scanning on the controller (`LiveScan.with`), or opens the recording and tells
    /// its format from its first bytes (waiting for them: run it under a deadline when a pipe
    /// may stay silent; cancelling the task ends the wait), and runs `body` on it. A source
    /// that cannot be opened throws its `SightingSourceError`; what `body` throws is rethrown
    /// as it is. `configure` adjusts a live scan.
    public static func with<Value>(
        _ origin: SightingOrigin, logger: Logger, configure: (inout ScanConfiguration) -> Void = { _ in },
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
            let input: SightingInput
            do {
                input = try await SightingSources.open(path: path)
            } catch {
                throw SightingSourceError.recording(error)
            }
            // A recording needs no closing: it is read to its end or dropped.
            return try await body(.recording(input))
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

extension SightingInput {
    /// Calls `take` with each sighting in order until the input ends or `take` returns
    /// `false`. A malformed input throws its `SightingStreamError`; cancellation ends the
    /// reading early with `CancellationError`, so that callers never take a partial read
    /// for a whole one.
    public func forEach(_ take: (Sighting) -> Bool) async throws {
        // A batch per await, as decoded: a recording brings millions of sightings.
        var iterator: any SightingBatchIterator
        switch self {
        case .capture(let capture): iterator = capture.makeBatchIterator()
        case .jsonLines(let sightings): iterator = sightings.makeBatchIterator()
        case .broker(let sightings): iterator = sightings.makeBatchIterator()
        }
        var batch: [Sighting] = []
        while try await iterator.nextBatch(into: &batch) {
            for sighting in batch where !take(sighting) { return }
        }
        try Task.checkCancellation()
    }

    /// Where a capture was cut off, once it has been read to that point; `nil` for JSON lines
    /// (whose first bad line is an error) and for a whole capture.
    public var truncation: String? {
        if case .capture(let capture) = self { return capture.summary.values?.truncation }
        return nil
    }

    /// What to say of a capture's records that could not be decoded, once read to its end;
    /// `nil` for JSON lines (whose first bad line is an error) and when every record decoded.
    public var undecodableWarning: String? {
        if case .capture(let capture) = self { return capture.summary.values?.undecodableWarning }
        return nil
    }
}
