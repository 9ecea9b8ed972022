import BeaconCore
import HCI
import Logging

/// A scan on a live controller that owns its whole lifecycle: opening the link, bringing the
/// controller up and enabling scanning, then disabling scanning (sent even when the caller
/// was cancelled) and closing the link. scan, verify, monitor, calibrate and provision all
/// listen through the scoped form, `LiveScan.with { scan in … }`, so none of them can forget
/// a step, do them out of order, or leave a controller scanning after an error.
public final class LiveScan: Sendable {
    /// The controller, as its transport is named (`hci0`, `virtual:@1,0`, …).
    public let controller: String
    public let session: ScanSession
    private let host: HostController

    private init(controller: String, host: HostController, session: ScanSession) {
        self.controller = controller
        self.host = host
        self.session = session
    }

    /// Every iBeacon sighting from now until `close()` or the end of the link.
    public var sightings: AsyncThrowingStream<Sighting, any Error> { session.sightings }
    public var family: ScanFamily { session.family }
    public var counts: SightingExtractionCounts { session.counts }
    /// The telemetry readings heard beside the sightings (`ScanSession.telemetry`).
    public var telemetry: TelemetryInbox { session.telemetry }
    /// Whether the controller delivers (`ScanSession.health`).
    public var health: AsyncStream<InputHealthChange> { session.health }
    /// Reports lost between the controller and the consumer of `sightings` so far.
    public var lostCount: Int { session.lostCount }
    /// Seconds since scanning started, on the clock of the sightings' times.
    public func elapsed() -> Double { session.elapsed() }
    /// The time since scanning started as a time on the scan's clock, the one its reading's
    /// pass counts on (`read(until:every:…)`, `PassClocking.scan`).
    public func now() -> PassTime { PassTime(sinceOrigin: session.elapsedSinceStart()) }

    /// What to add to a sighting's time to get Unix time (seconds since 1970, UTC), read
    /// once from the wall clock: sightings keep the monotonic clock's gaps however the wall
    /// clock is set afterwards.
    public func unixTimeOffset() -> Double {
        WallClock.unixOffset(elapsed: elapsed())
    }

    /// Opens the controller `connection` names and starts scanning on it; the caller must
    /// `close()` it (`with` does).
    static func start(
        _ connection: ControllerConnection, logger: Logger, configure: (inout ScanConfiguration) -> Void = { _ in }
    ) async throws(LiveScanError) -> LiveScan {
        var configuration = ScanConfiguration(
            access: ControllerAccess(connection.spec), receiver: ReceiverName.standard(controller: connection.spec.description))
        configure(&configuration)
        return try await start(
            opening: connection.opener, controller: connection.spec.description,
            commandTimeout: connection.commandTimeout, configuration: configuration, logger: logger)
    }

    /// Opens a transport with `open` and starts scanning on it; the caller must `close()` it.
    static func start(
        opening open: BeaconAdvertiser.TransportOpener, controller: String, commandTimeout: Duration,
        configuration: ScanConfiguration, logger: Logger, clock: any Clock<Duration> = ContinuousClock()
    ) async throws(LiveScanError) -> LiveScan {
        let transport: any HCITransport
        do {
            transport = try await open()
        } catch {
            throw .unreachable(controller: controller, error)
        }
        let host = HostController(transport: transport, defaultTimeout: commandTimeout, clock: clock)
        do {
            let session = try await BeaconScanner(host: host, configuration: configuration, logger: logger, clock: clock).start()
            return LiveScan(controller: controller, host: host, session: session)
        } catch {
            await host.close()
            throw .refused(error)
        }
    }

    /// Opens the controller `connection` names, scans while `body` runs, and stops and closes
    /// the scan after it, whether `body` returned, threw or was cancelled. A scan that cannot
    /// start throws its `LiveScanError` (and `body` never runs); what `body` throws is
    /// rethrown as it is. The scan's access mode (exclusive or shared) comes from the spec,
    /// its receiver name is `ReceiverName.standard` of it; `configure` adjusts the rest
    /// (family, timing, receiver).
    public static func with<Value>(
        _ connection: ControllerConnection, logger: Logger, configure: (inout ScanConfiguration) -> Void = { _ in },
        _ body: (LiveScan) async throws -> Value
    ) async throws -> Value {
        let scan = try await start(connection, logger: logger, configure: configure)
        return try await scan.closing(after: body)
    }

    /// `with(_:logger:configure:_:)` on a transport `open` makes: tests pass in-memory
    /// controllers, and a test clock as `clock` (of the scan and its command timeouts).
    public static func with<Value>(
        opening open: BeaconAdvertiser.TransportOpener, controller: String, commandTimeout: Duration,
        configuration: ScanConfiguration, logger: Logger, clock: any Clock<Duration> = ContinuousClock(),
        _ body: (LiveScan) async throws -> Value
    ) async throws -> Value {
        let scan = try await start(
            opening: open, controller: controller, commandTimeout: commandTimeout, configuration: configuration,
            logger: logger, clock: clock)
        return try await scan.closing(after: body)
    }

    /// Runs `body` on this scan, then closes it whatever `body` did.
    func closing<Value>(after body: (LiveScan) async throws -> Value) async throws -> Value {
        let outcome: Result<Value, any Error>
        do {
            outcome = .success(try await body(self))
        } catch {
            outcome = .failure(error)
        }
        await close()
        return try outcome.get()
    }

    /// Disables scanning, ends `sightings` and closes the link. Idempotent: a use case may
    /// stop the scan early inside `with` (to read its final counts), and the scope's own
    /// close then does nothing.
    public func close() async {
        await session.stop()
        await host.close()
    }
}

extension LiveScan: LossCounting {}

/// Why a live scan could not start. `description` is the message for the user.
public enum LiveScanError: Error, Sendable, CustomStringConvertible {
    /// The transport could not be opened.
    case unreachable(controller: String, HCITransportError)
    /// The controller was reached but refused (or did not answer) the scan's bring-up.
    case refused(ScanError)

    public var description: String {
        switch self {
        case .unreachable(_, let error): error.advisedMessage
        case .refused(let error): error.description
        }
    }
}
