import BeaconCore
import HCI
import Logging
import Synchronization

/// One running scan: its sightings, its counters, and `stop()`.
///
/// Sighting times are seconds since the scan started, on the scanner's clock (monotonic in
/// the tool: wall-clock changes never make time run backwards; a test clock in tests). Scanning stops, and the disable command is
/// sent, when `stop()` is called or when the consumer of `sightings` stops iterating; the
/// stream ends with a `ScanError` if the link to the controller ends.
public final class ScanSession: Sendable {
    public let family: ScanFamily
    public let controller: String
    public let sightings: AsyncThrowingStream<Sighting, any Error>
    /// The telemetry readings heard beside the sightings (Eddystone-TLM, KKM frames), on the
    /// sightings' clock and receiver, for the audit to take.
    public let telemetry = TelemetryInbox()

    private let commands: ScanCommands
    private let continuation: AsyncThrowingStream<Sighting, any Error>.Continuation
    /// Whether the controller delivers: `restored` once scanning is on, `lost` when it has
    /// sent no advertising report of any kind for `quietAfter` (a controller that hangs, or
    /// a scan another program turned off), `restored` at its next report.
    public let health: AsyncStream<InputHealthChange>
    private let healthContinuation: AsyncStream<InputHealthChange>.Continuation
    /// The clock of this scan's sighting times: what runs over the scan ticks on it too.
    public let clock: any Clock<Duration>
    /// Time since the scan started: the one origin of sighting times and silences.
    private let sinceStart: Stopwatch
    private let state = Mutex(State())

    private struct State {
        var counts = SightingExtractionCounts()
        /// When the last report came, as time since the scan started.
        var lastReport: Duration?
        var readerTask: Task<Void, Never>?
        var watchdogTask: Task<Void, Never>?
        var stopTask: Task<Void, Never>?
        var linkEnded = false
        var quietPeriods = 0
        var droppedSightings = 0
    }

    /// Sightings held for a consumer that falls behind (a slow pipe): about 15 MB. Beyond,
    /// the oldest are dropped and counted rather than memory growing without bound.
    public static let sightingBufferSize = 100_000

    private let hostDrops: DropCounter

    init(
        commands: ScanCommands, family: ScanFamily, events: AsyncStream<HostControllerEvent>, hostDrops: DropCounter,
        clock: any Clock<Duration>
    ) {
        self.commands = commands
        self.family = family
        self.controller = commands.controller
        self.clock = clock
        self.sinceStart = Stopwatch(on: clock)
        self.hostDrops = hostDrops
        (sightings, continuation) = AsyncThrowingStream.makeStream(
            of: Sighting.self, throwing: (any Error).self,
            bufferingPolicy: .bufferingNewest(commands.configuration.sightingBufferSize ?? Self.sightingBufferSize))
        (health, healthContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(16))
        healthContinuation.yield(.restored)
        // A consumer that stops iterating stops the scan.
        continuation.onTermination = { [weak self] termination in
            if case .cancelled = termination, let self {
                Task { await self.stop() }
            }
        }
        let reader = Task { [self] in await read(events) }
        let watchdog = Task { [self] in await watchForQuiet() }
        state.withLock {
            $0.readerTask = reader
            $0.watchdogTask = watchdog
        }
    }

    /// Seconds since scanning started, on the clock the sighting times use.
    public func elapsed() -> Double {
        sinceStart.elapsedSeconds
    }

    /// The time since scanning started, on the clock the sighting times use, exactly.
    public func elapsedSinceStart() -> Duration {
        sinceStart.elapsed
    }

    /// What the scan has read so far.
    public var counts: SightingExtractionCounts {
        state.withLock { $0.counts }
    }

    /// Disables scanning and ends `sightings`. Idempotent; concurrent calls all wait for
    /// the same stop. The disable command is sent even when the caller is cancelled.
    public func stop() async {
        let stopping: Task<Void, Never> = state.withLock { state in
            if let existing = state.stopTask { return existing }
            let reader = state.readerTask
            let watchdog = state.watchdogTask
            let task = Task { [self] in
                watchdog?.cancel()
                reader?.cancel()
                await reader?.value
                await disableScanning()
                continuation.finish()
                healthContinuation.finish()
            }
            state.stopTask = task
            return task
        }
        await stopping.value
    }

    // MARK: Reading reports

    private func read(_ events: AsyncStream<HostControllerEvent>) async {
        var extractor = SightingExtractor(receiver: commands.configuration.receiver ?? controller, telemetry: telemetry)
        let logger = commands.logger
        for await element in events {
            switch element {
            case .event(let event):
                if case .hardwareError(let code) = event {
                    logger.warning("\(controller): the controller reported hardware error \(HexText.code(code, digits: 2)); scanning may have stopped (a Reset follows if the controller restarts)")
                }
                guard case .le(let meta) = event, meta.isAdvertisingReport else { continue }
                let time = elapsed()
                let extraction = extractor.extract(from: event, at: time)
                noteReport(counts: extractor.counts)
                for problem in extraction.problems {
                    logger.debug("ignored a malformed advertising report: \(problem)", metadata: ["hci": "\(controller)"])
                }
                for sighting in extraction.sightings {
                    if case .dropped = continuation.yield(sighting) { noteDroppedSighting() }
                }
            case .malformedPacket(let packet, let error):
                extractor.noteMalformedEvent()
                state.withLock { $0.counts = extractor.counts }
                logger.debug(
                    "ignored an undecodable event: \(error)",
                    metadata: ["hci": "\(controller)", "bytes": "\(packet.body.count)"])
            case .unsolicitedReset:
                logger.warning("\(controller): the controller was reset by another program or restarted; setting scanning up again")
                await restart()
            case .transportEnded(let error):
                state.withLock { $0.linkEnded = true }
                continuation.finish(throwing: ScanError(controller: controller, kind: .transportEnded(error)))
                return
            }
        }
    }

    private func noteDroppedSighting() {
        let dropped = state.withLock { state in
            state.droppedSightings += 1
            return state.droppedSightings
        }
        if dropped == 1 {
            commands.logger.warning("\(controller): sightings arrive faster than they are consumed; the oldest are being dropped")
        }
    }

    /// Sightings dropped because the consumer fell more than `sightingBufferSize` behind.
    public var droppedSightingCount: Int {
        state.withLock { $0.droppedSightings }
    }

    /// Everything lost between the controller and the consumer of `sightings`: controller
    /// events the host could not hand to this scan in time (each may have held several
    /// reports) plus sightings the consumer did not take in time. Non-zero means what was
    /// heard is incomplete: "not heard" may be "lost".
    public var lostCount: Int {
        hostDrops.value + droppedSightingCount
    }

    private func noteReport(counts: SightingExtractionCounts) {
        let now = sinceStart.elapsed
        let resumedAfter: Duration? = state.withLock { state in
            defer {
                state.counts = counts
                state.lastReport = now
                state.quietPeriods = 0
            }
            guard state.quietPeriods > 0 else { return nil }
            return now - (state.lastReport ?? .zero)
        }
        if let resumedAfter {
            commands.logger.info("\(controller): advertising reports resumed after \(Self.text(resumedAfter)) of silence")
            healthContinuation.yield(.restored)
        }
    }

    /// After a Reset the controller forgot the masks and the scan: set them up again.
    private func restart() async {
        guard !Task.isCancelled else { return }
        do {
            if commands.configuration.isExclusive { try await commands.setEventMasks() }
            try await commands.startScanning(family)
            commands.logger.info("\(controller): scanning again after the reset")
        } catch {
            // Cancelled by `stop()` while setting up again: nothing to report.
            guard !Task.isCancelled else { return }
            commands.logger.error("\(error)")
            continuation.finish(throwing: error)
        }
    }

    // MARK: Quiet controller

    /// Checks a few times per `quietAfter` whether reports still arrive. The first quiet
    /// period is a warning (another program may have disabled scanning, or the controller
    /// hung); scanning is enabled again each time, which a scanning controller accepts.
    private func watchForQuiet() async {
        let quietAfter = commands.configuration.quietAfter
        guard quietAfter > .zero else { return }
        while !Task.isCancelled {
            do {
                try await clock.sleep(for: quietAfter / 4)
            } catch {
                return
            }
            let now = sinceStart.elapsed
            let quiet: (period: Int, silence: Duration)? = state.withLock { state in
                guard !state.linkEnded, state.stopTask == nil else { return nil }
                let since = state.lastReport ?? .zero
                let silence = now - since
                // One notice per quietAfter of silence.
                guard silence >= quietAfter * (state.quietPeriods + 1) else { return nil }
                state.quietPeriods += 1
                return (state.quietPeriods, silence)
            }
            guard let quiet else { continue }
            let message = "\(controller): no advertising reports for \(Self.text(quiet.silence)) while scanning; "
                + "enabling scanning again in case another program or the controller stopped it "
                + "(if nothing advertises nearby, this is expected)"
            if quiet.period == 1 {
                commands.logger.warning("\(message)")
                // No report of any kind, not even from the phones and gadgets of any room:
                // the controller's silence, which says nothing of the beacons.
                healthContinuation.yield(.lost(reason: "\(controller): no advertising report of any kind for \(Self.text(quiet.silence))"))
            } else {
                commands.logger.debug("\(message)")
            }
            do {
                try await commands.enableScanning(family)
            } catch {
                // Controllers before Core 5.0 refuse enabling an enabled scan: not a fault.
                commands.logger.debug("re-enabling scanning was not accepted: \(error)")
            }
        }
    }

    // MARK: Stopping

    private func disableScanning() async {
        guard !state.withLock({ $0.linkEnded }) else { return }
        do {
            try await commands.stopScanning(family)
            commands.logger.debug("scanning disabled", metadata: ["hci": "\(controller)"])
        } catch {
            commands.logger.warning("could not disable scanning: \(error)")
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        duration.secondsValue
    }

    /// `12.5 s`.
    static func text(_ duration: Duration) -> String {
        let tenths = (seconds(duration) * 10).rounded()
        return "\(tenths / 10) s"
    }
}

extension LEMetaEvent {
    /// LE Advertising Report or LE Extended Advertising Report.
    var isAdvertisingReport: Bool {
        switch self {
        case .advertisingReport, .extendedAdvertisingReport: return true
        default: return false
        }
    }
}

extension ScanSession: LossCounting {}
