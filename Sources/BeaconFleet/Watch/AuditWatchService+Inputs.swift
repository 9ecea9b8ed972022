import BeaconCore

/// The watch over each input the user can name, run the way that input calls for
/// (docs/verify.md, "--watch"): a regular file replayed on its own clock as fast as it reads,
/// a pipe live, a broker's receivers followed live from the start, this machine's scan live.
/// The part a user may stop runs through `stops`; a stop ends the watch with its final report,
/// as the end of the input does. What the input or the source throws passes through as it is.
extension AuditWatchService {
    /// The recording at `path` (`-`: standard input). A pipe may be watched for stalls
    /// (`stallAfter`, `--stall-after`); a regular file never stalls, as it is read to its end.
    ///
    /// Opening the input (which waits for its first bytes) and watching it are one stoppable
    /// part: a stop while the first bytes are awaited ends the watch too, with nothing heard.
    public func run(
        _ watch: AuditWatch, recording path: String, stallAfter: Duration?, stops: any StopRequests,
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> AuditStatusReport {
        let timing = SightingRecording.isRegularFile(path) ? VerificationTiming.replay : AuditWatch.liveTiming
        let logger = self.logger
        return try await stoppable(stops) { () async throws -> AuditStatusReport in
            let opened: SightingRecording
            do {
                opened = try await SightingRecording.open(path: path)
            } catch where Task.isCancelled {
                // Stopped before the input said what it carries: nothing was heard.
                return try await watch.run(AsyncThrowingStream<Sighting, any Error> { $0.finish() }, timing: .replay, sinks: sinks, clock: clock)
            }
            opened.announceUndeclaredUnixTime { logger.warning("\($0)") }
            defer {
                if let truncation = opened.truncation { logger.warning("\(path): \(truncation); used what precedes it") }
                if let undecodable = opened.undecodableWarning { logger.warning("\(path): \(undecodable)") }
            }
            // Each format by its own type: a replay runs specialised code at a million sightings/s.
            switch opened {
            case .capture(let capture):
                return try await watch.run(
                    capture, timing: timing, input: path, sinks: sinks, clock: clock, stallAfter: stallAfter, telemetry: opened.telemetry)
            case .jsonLines(let lines):
                return try await watch.run(
                    lines, timing: timing, input: path, sinks: sinks, clock: clock, stallAfter: stallAfter, telemetry: lines.telemetry)
            case .broker(let sightings):
                return try await watch.run(sightings, timing: timing, input: path, sinks: sinks, clock: clock, telemetry: sightings.telemetry)
            }
        }
    }

    /// A broker's sightings, live from the start, without waiting for a first sighting: the
    /// beacons of a chain whose boxes are all silent still go missing after `silence`. Blind
    /// until the broker is connected, and whenever it is lost. The broker is not closed here:
    /// `finish` closes it, whatever ended the watch.
    public func run(
        _ watch: AuditWatch, broker: BrokerInput, stops: any StopRequests, clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> AuditStatusReport {
        if let warning = GatewayPacing.silenceWarning(gateways: broker.feed.subscriptions.map(\.gateway), silence: settings.silence.secondsValue) {
            logger.warning("\(warning)")
        }
        let sinks = self.sinks
        return try await stoppable(stops) {
            try await watch.run(
                broker.feed.sightings, timing: AuditWatch.liveTiming, lostMessages: broker.feed, health: broker.health,
                receiverStatus: broker.feed.receiverStatuses, input: broker.name, sinks: sinks, clock: clock,
                telemetry: broker.feed.sightings.telemetry)
        }
    }

    /// This machine's scan, live: the controller is one receiver, whose failure ends the scan
    /// and whose silence is the beacons'.
    public func run(
        _ watch: AuditWatch, scan: LiveScan, stops: any StopRequests, clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> AuditStatusReport {
        let sinks = self.sinks
        return try await stoppable(stops) {
            try await watch.run(
                scan.sightings, timing: AuditWatch.liveTiming, lostBeforehand: scan, health: scan.health, input: scan.controller,
                sinks: sinks, clock: clock, telemetry: scan.telemetry)
        }
    }

    /// Runs `operation` through `stops`: a stop ends it with what it returns (the watch's final
    /// report), never as a failure; an error it throws passes through.
    private func stoppable(
        _ stops: any StopRequests, _ operation: @escaping @Sendable () async throws -> AuditStatusReport
    ) async throws -> AuditStatusReport {
        try await stops.stoppable { () -> Result<AuditStatusReport, any Error> in
            do {
                return .success(try await operation())
            } catch {
                return .failure(error)
            }
        }.value.get()
    }
}
