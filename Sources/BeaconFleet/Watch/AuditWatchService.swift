import BeaconCore
import Logging

/// `verify --watch` around its audit: the broker every change is published to (a previous
/// run's retained standings unconfirmed first, each beacon announced to Home Assistant), the
/// state file the watch restarts from and keeps current, and the end that flushes the file
/// and says whether the broker took every change. The command adds the sinks of its own
/// (standard output, `--exec`) and names the input; this holds everything in between, the
/// watch over each input included (`AuditWatchService+Inputs.swift`).
public struct AuditWatchService: Sendable {
    /// What the watch is asked for, beside its input.
    public struct Settings: Sendable {
        /// How long without a reception before a beacon is missing (`--silence`).
        public var silence = ContinuousAudit.Configuration.defaultSilence
        /// `--state FILE`: where the beacons' states are kept and restarted from.
        public var stateFile: String?
        /// `--mqtt URL`: the broker every change is published to.
        public var publishTo: String?
        /// `--home-assistant` (with its discovery prefix): each beacon announced there.
        public var homeAssistantPrefix: String?
        /// The manifest's venue names by id: Home Assistant's areas.
        public var venueNames: [String: String] = [:]
        /// Where the broker's credentials and TLS settings are read from.
        public var environment: [String: String] = [:]

        public init() {}
    }

    /// What stops the watch before it starts, or spoils its end.
    public enum Failure: Error, CustomStringConvertible, Sendable {
        /// The broker to publish to cannot be used as given (its URL, its credentials).
        case publishing(BrokerSetupError)
        /// The state file exists but cannot be read.
        case stateFile(AuditStateFileError)
        /// Not every change reached the broker (the log said what became of them).
        case undelivered(broker: String)

        public var description: String {
            switch self {
            case .publishing(let error): error.description
            case .stateFile(let error): error.description
            case .undelivered(let broker): "not every change reached \(broker) (see above)"
            }
        }
    }

    public let plan: VerificationPlan
    public let settings: Settings
    /// Every sink of the watch: the command's, then the broker's and the state file's.
    public let sinks: [any AuditEventSink]
    /// The broker the changes go to, when `publishTo` was given.
    public let publishing: ReportPublishing?
    private let stateFile: AuditStateFile?
    private let restored: AuditStateFile.Contents?
    let logger: Logger

    /// Connects the publishing (in the background: a broker not up yet is retried while the
    /// changes queue), announces the beacons, and reads the state file. `sinks` are the
    /// command's own, which get every change first.
    public static func start(
        plan: VerificationPlan, settings: Settings, sinks: [any AuditEventSink], logger: Logger
    ) throws(Failure) -> AuditWatchService {
        var sinks = sinks
        var publishing: ReportPublishing?
        if let url = settings.publishTo {
            let started: ReportPublishing
            do {
                started = try ReportPublishing.start(
                    url, role: "audit", what: "audit changes", environment: settings.environment, logger: logger)
            } catch {
                throw .publishing(error)
            }
            sinks.append(Self.publish(plan: plan, to: started, settings: settings, logger: logger))
            publishing = started
        }
        // Restart without amnesia: the states a previous watch kept, and the file kept current.
        var restored: AuditStateFile.Contents?
        var file: AuditStateFile?
        if let path = settings.stateFile {
            do {
                restored = try AuditStateFile.read(path)
            } catch {
                throw .stateFile(error)
            }
            if let restored {
                let known = plan.expected.count { restored.beacons[$0.beaconID] != nil }
                let written = WallClock.iso8601(restored.writtenAt) ?? "at an unknown time"
                logger.notice("restarting from \(path) (written \(written)): \(known) of \(plan.expected.count) beacons start in the state they had; only changes from it are reported")
            } else {
                logger.notice("\(path) does not exist yet: every beacon starts unknown, and their states are kept there from now on")
            }
            let keeper = AuditStateFile(
                path: path, restored: restored?.beacons ?? [:], restoredReceivers: restored?.receivers ?? [:],
                restoredBatteries: restored?.batteries ?? [:])
            sinks.append(keeper)
            file = keeper
        }
        return AuditWatchService(
            plan: plan, settings: settings, sinks: sinks, publishing: publishing, stateFile: file, restored: restored, logger: logger)
    }

    /// The sink publishing every change, set up on the broker: a previous run's retained
    /// standings say nothing of now, so each beacon is unknown until this watch judges it
    /// (published before the discovery and any change, on the same connection); then each
    /// beacon is announced to Home Assistant, retained, as it reads them whenever it connects.
    private static func publish(
        plan: VerificationPlan, to publishing: ReportPublishing, settings: Settings, logger: Logger
    ) -> MQTTAuditSink {
        let discovery = settings.homeAssistantPrefix.map {
            HomeAssistantDiscovery(discoveryPrefix: $0, topics: publishing.topics, venueNames: settings.venueNames)
        }
        // Receivers are learned from the input: each is announced when the watch first knows it.
        let sink = MQTTAuditSink(client: publishing.client, topics: publishing.topics, receiverDiscovery: discovery)
        sink.unconfirm(plan.expected)
        logger.notice("publishing every change to \(publishing.client.broker) (\(publishing.topics.auditEvents))")
        if let discovery {
            for announcement in discovery.announcements(for: plan.expected) {
                publishing.client.publish(topic: announcement.topic, payload: Array(announcement.payload.utf8), retain: true)
            }
            logger.notice("announced \(NumberText.count(plan.expected.count, "beacon")) to Home Assistant (\(discovery.discoveryPrefix)/…/config)")
        }
        return sink
    }

    /// The watch, starting from the restored states. A broker's receivers are boxes that can
    /// die (`followsReceivers`); this host's controller, or a file or pipe of its scans, is
    /// one receiver whose failure ends the scan and whose silence is the beacons'.
    public func watch(followsReceivers: Bool, readings: AuditWatchReadings?) -> AuditWatch {
        AuditWatch(
            plan: plan, configuration: ContinuousAudit.Configuration(silence: settings.silence, followsReceivers: followsReceivers),
            restoredStates: restored?.beacons ?? [:], restoredReceivers: restored?.receivers ?? [:],
            restoredBatteries: restored?.batteries ?? [:], readings: readings)
    }

    /// Ends the watch, whatever ended it: the state file flushed, `closeInput` (a broker's
    /// connections) closed, the publishing drained. A watch that failed rethrows its error;
    /// one that ran fails with `.undelivered` when the broker did not take every change.
    public func finish(
        _ outcome: Result<AuditStatusReport, any Error>, closeInput: () async throws -> Void
    ) async throws -> AuditStatusReport {
        let report: AuditStatusReport
        switch outcome {
        case .failure(let error):
            if let failure = await stateFile?.flush() { logger.error("\(failure)") }
            _ = await publishing?.finish(logger: logger)
            try await closeInput()
            throw error
        case .success(let value):
            report = value
        }
        if let failure = await stateFile?.flush() { logger.error("\(failure); the next start with --state will not know the latest states") }
        do {
            try await closeInput()
        } catch {
            _ = await publishing?.finish(logger: logger)
            throw error
        }
        if let publishing, !(await publishing.finish(logger: logger)) {
            throw Failure.undelivered(broker: publishing.client.broker.description)
        }
        return report
    }
}
