import BeaconCore
import HCI
import HCITransports
import Logging

/// What to advertise, and how.
public struct AdvertiserConfiguration: Sendable {
    public var requests: [AdvertisingRequest]
    public var family: AdvertisingFamilyChoice
    /// Legacy rotation: how long each beacon keeps the air; `nil` for one advertising interval.
    public var rotationSlot: Duration?
    /// How to come back after a fault; `nil` ends the run with the fault.
    public var restart: RestartPolicy?
    /// Applies to every command (Reset gets at least `ControllerBringUp.minimumResetTimeout`).
    public var commandTimeout: Duration
    /// Stop on its own after this long; `nil` runs until cancelled.
    public var duration: Duration?

    public init(
        requests: [AdvertisingRequest], family: AdvertisingFamilyChoice = .auto, rotationSlot: Duration? = nil,
        restart: RestartPolicy? = nil, commandTimeout: Duration = .seconds(2), duration: Duration? = nil
    ) {
        self.requests = requests
        self.family = family
        self.rotationSlot = rotationSlot
        self.restart = restart
        self.commandTimeout = commandTimeout
        self.duration = duration
    }
}

/// The `advertise` use case: brings a controller up, puts the beacons on the air, watches
/// that they stay there, and takes them off again.
///
/// `run` returns once the beacons are off the air and the controller closed: when its task
/// is cancelled (the command cancels it on SIGINT/SIGTERM) or the duration elapsed. It
/// throws when they cannot be started, or when they went off the air and no restart policy
/// (or no attempt left) brings them back. Every path out takes the beacons off the air
/// first, as far as the controller still answers.
public struct BeaconAdvertiser: Sendable {
    /// The end of a run given a duration: a point on the advertiser's clock, as the time
    /// since the run started.
    struct RunDeadline: Sendable {
        let sinceStart: Stopwatch
        let at: Duration
        var remaining: Duration { at - sinceStart.elapsed }
    }

    public typealias TransportOpener = @Sendable () async throws(HCITransportError) -> any HCITransport

    public let controller: HCITransportSpec
    public let configuration: AdvertiserConfiguration
    let logger: Logger
    let openTransport: TransportOpener
    let readOccupiedSets: OccupiedAdvertisingSetsReader
    /// The clock of the run's duration, restart delays, uptimes and command timeouts:
    /// `ContinuousClock` in the tool, a clock the test advances by hand in tests.
    let clock: any Clock<Duration>

    /// Advertises on the controller `connection` reaches (recording into its capture, if any);
    /// on a controller shared with the kernel (`hci0`) the connection's platform says which
    /// advertising sets bluetoothd holds (the kernel's management interface).
    public init(
        connection: ControllerConnection, configuration: AdvertiserConfiguration, logger: Logger,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.init(
            controller: connection.spec, configuration: configuration, logger: logger, openTransport: connection.opener,
            readOccupiedSets: connection.occupiedSetsReader(timeout: configuration.commandTimeout), clock: clock)
    }

    /// `openTransport` opens the controller; tests pass an in-memory one. `controller` decides
    /// whether the controller is shared with the kernel (`hci0`) or exclusive; on a shared
    /// controller `readOccupiedSets` says which advertising sets bluetoothd holds (tests pass
    /// what they script).
    public init(
        controller: HCITransportSpec, configuration: AdvertiserConfiguration, logger: Logger,
        openTransport: @escaping TransportOpener, readOccupiedSets: @escaping OccupiedAdvertisingSetsReader,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.controller = controller
        self.configuration = configuration
        self.logger = logger
        self.clock = clock
        self.readOccupiedSets = readOccupiedSets
        self.openTransport = openTransport
    }

    public func run(onEvent: @escaping @Sendable (AdvertiserEvent) -> Void) async throws(AdvertisingError) -> StopReason {
        guard !configuration.requests.isEmpty else { throw .invalidRequest("no beacons to advertise") }
        let sinceStart = Stopwatch(on: clock)
        let deadline = configuration.duration.map { RunDeadline(sinceStart: sinceStart, at: $0) }
        var host: HostController?
        // Consecutive bring-ups that failed since the last session started.
        var failedAttempts = 0
        // Consecutive sessions that went off the air before `stableAfter`: a flapping
        // controller must not be restarted forever either.
        var quickFaults = 0
        var restartCount = 0

        while true {
            let outcome: SessionOutcome
            do {
                let current = try await connected(host)
                host = current
                outcome = await runSession(on: current, deadline: deadline, restartCount: restartCount, onEvent: onEvent)
            } catch {
                outcome = Task.isCancelled ? .stopped(.cancelled) : .startFailed(.transport(error))
            }

            switch outcome {
            case .stopped(let reason):
                await host?.close()
                onEvent(.stopped(reason))
                return reason
            case .stopUnconfirmed(let reason, let failures):
                await host?.close()
                throw .stopNotConfirmed(controller: controller.description, reason: reason, failures: failures)
            case .startFailed(let error):
                guard let policy = configuration.restart, error.isTransient else {
                    await host?.close()
                    throw error
                }
                failedAttempts += 1
                guard failedAttempts < policy.maximumAttempts else {
                    await host?.close()
                    throw .restartsExhausted(attempts: failedAttempts, last: error.description)
                }
                // The attempt after a fault waited `backoff(1)`: the failures that follow wait longer.
                let delay = policy.backoff(beforeAttempt: failedAttempts + 1)
                logger.info("attempt \(failedAttempts) of \(policy.maximumAttempts) failed: \(error)")
                onEvent(.restartFailed(error.description, attempt: failedAttempts, retryIn: delay))
                if case .transport = error { host = nil } else if error.linkIsGone { await host?.close(); host = nil }
                if await !pause(delay, until: deadline) {
                    await host?.close()
                    let reason: StopReason = Task.isCancelled ? .cancelled : .durationElapsed
                    onEvent(.stopped(reason))
                    return reason
                }
            case .fault(let sessionFault, let uptime):
                guard let policy = configuration.restart else {
                    onEvent(.interrupted(sessionFault, retryIn: nil))
                    await host?.close()
                    throw .fault(sessionFault)
                }
                quickFaults = uptime < policy.stableAfter ? quickFaults + 1 : 0
                guard quickFaults < policy.maximumAttempts else {
                    onEvent(.interrupted(sessionFault, retryIn: nil))
                    await host?.close()
                    throw .restartsExhausted(
                        attempts: quickFaults,
                        last: "the beacons went off the air \(quickFaults) times in a row within \(policy.stableAfter.components.seconds) s of "
                            + "starting; the last time: \(sessionFault)")
                }
                failedAttempts = 0
                let delay = policy.backoff(beforeAttempt: max(1, quickFaults))
                logger.info("beacons off the air: \(sessionFault); restarting in \(delay)")
                onEvent(.interrupted(sessionFault, retryIn: delay))
                if sessionFault.transportIsGone {
                    await host?.close()
                    host = nil
                }
                if await !pause(delay, until: deadline) {
                    await host?.close()
                    let reason: StopReason = Task.isCancelled ? .cancelled : .durationElapsed
                    onEvent(.stopped(reason))
                    return reason
                }
                // Counts the sessions that ran before the next one, not the attempts.
                restartCount += 1
                logger.info("restart \(restartCount): bringing the beacons back after: \(sessionFault)")
            }
        }
    }

    /// The host of the open controller, opening it when there is none.
    private func connected(_ host: HostController?) async throws(HCITransportError) -> HostController {
        if let host { return host }
        let transport = try await openTransport()
        return HostController(transport: transport, defaultTimeout: configuration.commandTimeout, clock: clock)
    }

    /// Sleeps `delay`; false when the task was cancelled or the deadline came first.
    private func pause(_ delay: Duration, until deadline: RunDeadline?) async -> Bool {
        if let deadline, deadline.remaining <= delay {
            try? await clock.sleep(for: deadline.remaining)
            return false
        }
        do {
            try await clock.sleep(for: delay)
            return true
        } catch {
            return false
        }
    }

    // MARK: One session

    private enum SessionOutcome {
        case stopped(StopReason)
        /// Asked to stop, but the controller did not acknowledge every stop command.
        case stopUnconfirmed(StopReason, failures: [String])
        case startFailed(AdvertisingError)
        case fault(AdvertisingFault, uptime: Duration)
    }

    private enum SessionEnd: Sendable {
        case stopped(StopReason)
        case fault(AdvertisingFault)
    }

    /// Brings the controller up, starts the beacons, watches them, and takes them off the air
    /// again (unless the link is gone).
    private func runSession(
        on host: HostController, deadline: RunDeadline?, restartCount: Int,
        onEvent: @escaping @Sendable (AdvertiserEvent) -> Void
    ) async -> SessionOutcome {
        // Subscribed before bring-up, so that a fault between two commands is not missed.
        let events = await host.events()
        let ledger = CommandLedger()
        let commands = SessionCommands(host: host, logger: logger, ledger: ledger)
        let access = ControllerAccess(controller)

        let driver: any AdvertisingDriver
        let start: AdvertisingStart
        let info: ControllerInfo
        do throws(AdvertisingError) {
            info = try await bringUp(commands, access: access)
            driver = try makeDriver(commands, controller: info)
            do throws(AdvertisingError) {
                start = try await driver.start()
            } catch {
                // A half-started controller must not keep advertising what was set up; the
                // start's error is what the user hears about.
                _ = await withoutCancellation { await driver.stop() }
                throw error
            }
        } catch {
            return Task.isCancelled ? .stopped(.cancelled) : .startFailed(error)
        }

        let session = AdvertisingSession(
            controller: info, family: driver is LegacyAdvertisingDriver ? .legacy : .extended,
            beacons: start.beacons, rotationSlot: start.rotationSlot, restartCount: restartCount)
        logger.info("advertising \(session.beacons.count) beacon(s) on \(info.name) (\(session.family))")
        onEvent(.started(session))
        for warning in start.warnings {
            logger.debug("warning: \(warning)")
            onEvent(.warning(warning))
        }

        let sinceSessionStart = Stopwatch(on: clock)
        let watchdog = AdvertisingWatchdog(session: session, ledger: ledger, logger: logger)
        let end = await supervise(session, driver: driver, watchdog: watchdog, events: events, deadline: deadline, onEvent: onEvent)
        switch end {
        case .stopped(let reason):
            let acknowledgement = await withoutCancellation { await driver.stop() }
            guard acknowledgement.isConfirmed else {
                return .stopUnconfirmed(reason, failures: acknowledgement.failures)
            }
            return .stopped(reason)
        case .fault(let fault):
            if !fault.transportIsGone, !fault.leftNoAdvertisingSets {
                // Best effort: whatever is still enabled must not stay on the air unsupervised.
                _ = await withoutCancellation { await driver.stop() }
            }
            return .fault(fault, uptime: sinceSessionStart.elapsed)
        }
    }

    private func bringUp(_ commands: SessionCommands, access: ControllerAccess) async throws(AdvertisingError) -> ControllerInfo {
        do {
            return try await ControllerBringUp.run(on: commands.host, access: access, logger: logger, ledger: commands.ledger)
        } catch {
            throw .command(error, context: "setting up the controller")
        }
    }

    private func makeDriver(_ commands: SessionCommands, controller info: ControllerInfo) throws(AdvertisingError) -> any AdvertisingDriver {
        guard let family = configuration.family.family(controllerSupportsExtended: info.supportsExtendedAdvertising) else {
            throw .extendedAdvertisingUnsupported(controller: info.name, version: info.version.hciVersion)
        }
        switch family {
        case .legacy:
            return LegacyAdvertisingDriver(
                commands: commands, controller: info, requests: configuration.requests,
                rotationSlot: configuration.rotationSlot, clock: clock)
        case .extended:
            return ExtendedAdvertisingDriver(
                commands: commands, controller: info, requests: configuration.requests,
                readOccupiedSets: readOccupiedSets)
        }
    }

    /// Waits for the first of: a fault, a rotation failure, the deadline, cancellation.
    private func supervise(
        _ session: AdvertisingSession, driver: any AdvertisingDriver, watchdog: AdvertisingWatchdog,
        events: AsyncStream<HostControllerEvent>, deadline: RunDeadline?,
        onEvent: @escaping @Sendable (AdvertiserEvent) -> Void
    ) async -> SessionEnd {
        let logger = self.logger
        return await withTaskGroup(of: SessionEnd?.self) { group in
            group.addTask {
                await watchdog.watch(events) { warning in
                    logger.debug("warning: \(warning)")
                    onEvent(.warning(warning))
                }.map(SessionEnd.fault)
            }
            if session.rotationSlot != nil {
                group.addTask { await driver.maintain(session).map(SessionEnd.fault) }
            }
            if let deadline {
                let clock = self.clock
                group.addTask {
                    do {
                        try await clock.sleep(for: deadline.remaining)
                        return .stopped(.durationElapsed)
                    } catch {
                        return nil
                    }
                }
            }
            for await end in group {
                if let end {
                    group.cancelAll()
                    return end
                }
            }
            return .stopped(.cancelled)
        }
    }
}

/// Runs `body` in a task that does not inherit the caller's cancellation: the stop sequence
/// must reach the controller even when the stop was caused by a cancellation (the host
/// refuses to send commands from a cancelled task).
func withoutCancellation<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) async -> Value {
    await Task { await body() }.value
}

extension AdvertisingError {
    /// Whether the error means the link to the controller is gone.
    var linkIsGone: Bool {
        switch self {
        case .transport: return true
        case .command(let error, _):
            switch error.kind {
            case .transport, .closed: return true
            default: return false
            }
        case .fault(let fault): return fault.transportIsGone
        default: return false
        }
    }
}
