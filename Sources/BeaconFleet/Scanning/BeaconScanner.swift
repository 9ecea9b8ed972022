import BeaconCore
import HCI
import Logging

/// Scans for iBeacons on one controller.
///
/// `start()` brings the controller up for passive scanning and returns a `ScanSession`
/// whose `sightings` stream yields every iBeacon report; `sightings()` does both in one
/// stream. The controller (a `HostController`) stays the caller's: the scanner only
/// enables and disables scanning on it.
///
/// - Bring-up: Reset and explicit event masks on exclusive transports only (see
///   `ScanConfiguration.access`); LE feature bit 12 picks legacy or extended scanning
///   (never both); passive, window = interval, duplicate filtering off.
/// - Every report of a multi-report event is read, the iBeacon is found anywhere among the
///   AD structures, anything else is ignored; malformed reports and events are counted and
///   logged at debug level, never fatal.
/// - A controller that sends no report for `quietAfter` is logged and re-enabled; a Reset
///   by another program (or a controller restart) is followed by a new bring-up.
public struct BeaconScanner: Sendable {
    public let host: HostController
    public let configuration: ScanConfiguration
    public let logger: Logger
    /// The clock of sighting times and of the quiet-controller watch: `ContinuousClock` in
    /// the tool, a clock the test advances by hand in tests.
    public let clock: any Clock<Duration>

    public init(
        host: HostController, configuration: ScanConfiguration, logger: Logger, clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.host = host
        self.configuration = configuration
        self.logger = logger
        self.clock = clock
    }

    /// Brings the controller up and enables scanning; the returned session reports from
    /// then on. Throws when the controller refuses or does not answer.
    public func start() async throws(ScanError) -> ScanSession {
        // Subscribe before enabling, so that no report is missed.
        let hostDrops = DropCounter()
        let events = await host.events(bufferSize: 4096, drops: hostDrops)
        let commands = ScanCommands(host: host, configuration: configuration, logger: logger)
        try await commands.prepare()
        let family = try await commands.chooseFamily()
        try await commands.startScanning(family)
        logger.info(
            "scanning",
            metadata: ["hci": "\(host.name)", "family": "\(family)", "exclusive": "\(configuration.isExclusive)"])
        return ScanSession(commands: commands, family: family, events: events, hostDrops: hostDrops, clock: clock)
    }

    /// Sightings until the stream's consumer stops (scanning is then disabled) or the link
    /// ends. A bring-up failure is thrown by the stream as a `ScanError`.
    public func sightings() -> AsyncThrowingStream<Sighting, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Sighting.self, throwing: (any Error).self)
        let scanner = self
        let task = Task {
            let session: ScanSession
            do {
                session = try await scanner.start()
            } catch {
                continuation.finish(throwing: error)
                return
            }
            do {
                for try await sighting in session.sightings {
                    continuation.yield(sighting)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
            await session.stop()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
