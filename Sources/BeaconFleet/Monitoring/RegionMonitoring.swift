import BeaconCore
import HCI
import Logging

/// A front end's part in a monitoring run beyond the reports it renders.
public protocol MonitorFrontEnd: MonitorReportSink {
    /// `--mqtt` has started: its client, for what the front end counts.
    func publishingStarted(_ publishing: ReportPublishing)
    /// The run is over (`stopping`: it failed); the front end's own outputs (programs it runs
    /// on events) finish before the broker's last messages are waited for.
    func finish(stopping: Bool) async
}

/// Where a front end asks a live monitoring run for every region's state at any time
/// (SIGUSR1 on the command line), as `requestStateForRegion` does.
public protocol MonitorStateRequests: Sendable {
    /// Calls `report` at each request until the returned function is called.
    func listen(_ report: @escaping @Sendable () -> Void) -> @Sendable () -> Void
}

/// Why monitoring failed, for the front end to word.
public enum MonitorFailure: Error, Sendable {
    /// `--mqtt` could not be set up.
    case publishing(BrokerSetupError)
    /// The recording could not be opened or is malformed.
    case recording(SightingStreamError)
    /// The broker did not take every event (`broker` names it; the publisher said which).
    case undelivered(broker: String)
}

/// The use case behind `monitor`: regions monitored over a live scan (`MonitorRun`) or a
/// recording or a broker's stream (`MonitorReplay`), every report going to the front end and,
/// with `--mqtt`, to a broker, from starting the publisher to its last message.
public struct RegionMonitoring: Sendable {
    public let regions: [MonitoredRegion]
    public let configuration: RegionMonitor.Configuration
    public let ranging: RangingConfiguration?
    public let schedule: MonitorSchedule
    /// Seconds of monitoring: of the scan, or from a recording's first sighting.
    public let duration: Duration?
    public let logger: Logger

    /// `rangeEvery` applies only with `ranging`.
    public init(
        regions: [MonitoredRegion], configuration: RegionMonitor.Configuration, ranging: RangingConfiguration?,
        stateEvery: Duration?, rangeEvery: Duration, duration: Duration?, logger: Logger
    ) {
        self.regions = regions
        self.configuration = configuration
        self.ranging = ranging
        self.schedule = MonitorSchedule(stateEvery: stateEvery, rangeEvery: ranging == nil ? nil : rangeEvery)
        self.duration = duration
        self.logger = logger
    }

    /// `monitor --mqtt`: the broker the events are published to.
    public struct PublishingRequest: Sendable {
        public var url: String
        public var environment: [String: String]

        public init(url: String, environment: [String: String]) {
            self.url = url
            self.environment = environment
        }
    }

    /// Starts publishing (when asked), runs `body` with the sink every report goes to (the
    /// front end, then the broker), then finishes the front end and the publisher, in that
    /// order, whether `body` returned or threw. Throws `MonitorFailure` for the publisher's
    /// failures; what `body` throws passes through.
    public func reporting(
        to frontEnd: any MonitorFrontEnd, publishing request: PublishingRequest?, _ body: (any MonitorReportSink) async throws -> Void
    ) async throws {
        let publishing: ReportPublishing?
        do throws(BrokerSetupError) {
            publishing = try request.map { request throws(BrokerSetupError) in
                try ReportPublishing.start(request.url, role: "monitor", what: "region events", environment: request.environment, logger: logger)
            }
        } catch {
            throw MonitorFailure.publishing(error)
        }
        var sinks: [any MonitorReportSink] = [frontEnd]
        if let publishing {
            logger.notice("publishing every event to \(publishing.client.broker) (\(publishing.topics.monitorEvents))")
            frontEnd.publishingStarted(publishing)
            sinks.append(MQTTMonitorSink(client: publishing.client, topics: publishing.topics))
        }
        logger.info("monitoring", metadata: ["regions": "\(regions.map(\.region.description).joined(separator: ", "))"])
        do {
            try await body(MonitorReportSinks(sinks))
        } catch {
            await frontEnd.finish(stopping: true)
            _ = await publishing?.finish(logger: logger)
            throw error
        }
        await frontEnd.finish(stopping: false)
        if let publishing, !(await publishing.finish(logger: logger)) {
            throw MonitorFailure.undelivered(broker: "\(publishing.client.broker)")
        }
    }

    /// Replays the recording at `path` (`-`: standard input), or follows `broker`'s stream, on
    /// one clock (`MonitorReplay`; a broker's stream is live, so its clock also follows the
    /// wall clock between sightings). A stop through `stops` is a normal end: what was read
    /// was monitored. A recording that cannot be read throws `MonitorFailure.recording`.
    public func replay(_ path: String, broker: BrokerInput?, output: any MonitorReportSink, stops: any StopRequests) async throws {
        let replay = MonitorReplay(
            session: { [regions, configuration, ranging] start in
                MonitorSession(regions: regions, configuration: configuration, ranging: ranging, start: start)
            },
            schedule: schedule, duration: duration, output: output, logger: logger)
        let heardAny: Bool
        do {
            heardAny = try await stops.stoppableThrowing {
                let recording = if let broker { broker.sightings } else { try await SightingRecording.open(path: path) }
                return try await replay.run(recording, named: path, followsWallClock: broker != nil)
            }
        } catch is UserStop {
            return
        } catch let error as SightingStreamError {
            throw MonitorFailure.recording(error)
        }
        if !heardAny {
            logger.warning("\(broker?.name ?? (path == "-" ? "<stdin>" : path)) holds no sightings; nothing to monitor")
        }
    }

    /// How live monitoring ended: the reports lost on the way (the scan's queues and
    /// monitoring's own), and the scan's failure, if it failed.
    public struct LiveEnd: Sendable {
        public let lostCount: Int
        public let failure: (any Error)?
    }

    /// Monitors `scan` until `duration`, its failure, or a stop through `stops` (a normal end),
    /// answering `stateRequests` meanwhile; then stops the scan, for what it lost.
    public func live(
        _ scan: LiveScan, output: any MonitorReportSink, stops: any StopRequests, stateRequests: (any MonitorStateRequests)?
    ) async -> LiveEnd {
        let run = MonitorRun(
            session: MonitorSession(regions: regions, configuration: configuration, ranging: ranging, start: .origin),
            schedule: schedule, output: output, logger: logger)
        let dropped = DropCounter()
        var failure: (any Error)?
        do {
            try await stops.stoppableThrowing { [duration] in
                let closing = stateRequests?.listen { run.reportStates(at: PassTime(sinceOrigin: scan.session.elapsedSinceStart())) }
                defer { closing?() }
                try await run.runLive(scan, duration: duration, drops: dropped)
            }
        } catch is UserStop {
            // Stopped: a normal end.
        } catch {
            failure = error
        }
        // Stopped here, not at the end of the scan's scope: what was lost is known once it has.
        await scan.close()
        return LiveEnd(lostCount: scan.lostCount + dropped.value, failure: failure)
    }
}
