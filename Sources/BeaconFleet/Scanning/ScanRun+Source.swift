import BeaconCore
import Logging

/// What a front end learns as `ScanRun.range(_:…)` goes, to count and draw the scan. Called
/// from the task running the scan, in order: `started` once, `tick` (a live scan) while it
/// reads, `ended` once the reading is over and before what was published is delivered.
public protocol ScanObserver: Sendable {
    func started(_ start: ScanStart)
    /// A live scan's time, at its start and every tick.
    func tick(_ now: PassTime)
    func ended(_ end: ScanEnd)
}

/// The source is open and the publisher (if any) started: what a front end counts from now on.
public struct ScanStart: Sendable {
    /// The live scan (for its controller and family); `nil` for a recording.
    public let live: LiveScan?
    /// What the live scan loses before its output sees it; `nil` for a recording.
    public let loss: ScanLoss?
    public let publisher: SightingPublishing?
}

/// How a scan's reading ended.
public enum ScanEnd: Sendable {
    /// A recording (or a broker's stream) read to its end, its duration or a stop; `latestTime`
    /// is its newest sighting's time, "now" for its last table.
    case recording(latestTime: PassTime?)
    /// A live scan stopped; a failure in it is thrown after this, as `ScanFailure.controller`.
    case live(ScanRun.LiveEnd)
}

/// Why a scan failed, for the front end to word.
public enum ScanFailure: Error, Sendable {
    /// `--mqtt` could not be set up.
    case publishing(BrokerSetupError)
    /// The recording is malformed.
    case recording(SightingStreamError)
    /// The live scan failed while it was read.
    case controller(any Error)
    /// The broker did not take every sighting (`broker` names it; the publisher said which).
    case undelivered(broker: String)
}

extension ScanRun {
    /// `scan --mqtt`: where the sightings are published, and how.
    public struct PublishingRequest: Sendable {
        public var url: String
        /// The name every sighting is published under; `nil` keeps each one's own (a recording).
        public var receiver: String?
        public var convention: SightingPublishing.Convention
        public var environment: [String: String]

        public init(url: String, receiver: String?, convention: SightingPublishing.Convention, environment: [String: String]) {
            self.url = url
            self.receiver = receiver
            self.convention = convention
            self.environment = environment
        }
    }

    /// The use case behind `scan` once its source is open: starts the publisher (a live scan's
    /// sightings on Unix time, a recording's on the clocks they carry), ranges the source to
    /// its end or `duration` (`rangeLive`, `rangeRecording`), the reading stoppable through
    /// `stops` as its end would, then delivers what is left to the broker. A live scan ticks
    /// `observer` every `tickEvery` seconds; `name` names a recording in its warnings.
    public func range(
        _ source: SightingSource, named name: String, duration: Duration?, publishing: PublishingRequest?,
        writesUnixTime: Bool, tickEvery: Double, stops: any StopRequests, observer: any ScanObserver, logger: Logger
    ) async throws(ScanFailure) {
        var wallClockOffset: Double?
        if case .live(let scan) = source { wallClockOffset = scan.unixTimeOffset() }
        let publisher: SightingPublishing?
        do throws(BrokerSetupError) {
            publisher = try publishing.map { request throws(BrokerSetupError) in
                try SightingPublishing.start(
                    request.url, receiver: request.receiver, wallClockOffset: wallClockOffset, convention: request.convention,
                    environment: request.environment, logger: logger)
            }
        } catch {
            throw .publishing(error)
        }
        switch source {
        case .recording(let recording):
            observer.started(ScanStart(live: nil, loss: nil, publisher: publisher))
            let (outcome, _) = await stops.stoppable { () -> Result<Void, SightingStreamError> in
                do throws(SightingStreamError) {
                    try await self.rangeRecording(recording, name: name, duration: duration, publisher: publisher, logger: logger)
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            if case .failure(let error) = outcome { throw .recording(error) }
            try await Self.deliver(publisher, logger: logger)
            observer.ended(.recording(latestTime: latestTime))
        case .live(let scan):
            let loss = ScanLoss(scan)
            observer.started(ScanStart(live: scan, loss: loss, publisher: publisher))
            let (end, _) = await stops.stoppable {
                await self.rangeLive(
                    scan, duration: duration, publisher: publisher, writesUnixTime: writesUnixTime, tickEvery: tickEvery,
                    drops: loss.reading
                ) { now in observer.tick(now) }
            }
            observer.ended(.live(end))
            if let failure = end.failure {
                await publisher?.finish(logger: logger)
                throw .controller(failure)
            }
            try await Self.deliver(publisher, logger: logger)
        }
    }

    /// Delivers what is left; sightings the broker did not take are a failure.
    private static func deliver(_ publisher: SightingPublishing?, logger: Logger) async throws(ScanFailure) {
        guard let publisher else { return }
        if !(await publisher.finish(logger: logger)) {
            throw .undelivered(broker: "\(publisher.client.broker)")
        }
    }
}
