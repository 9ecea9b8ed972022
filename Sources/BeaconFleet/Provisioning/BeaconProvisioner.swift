import BeaconCore
import FleetManifest
import HCI
import HCITransports
import Logging

/// What to provision, and how.
public struct ProvisionConfiguration: Sendable {
    public var fleet: Fleet
    /// The host whose beacons are advertised (the manifest's `host:`).
    public var host: String
    /// The controller that advertises.
    public var advertisingController: HCITransportSpec
    /// The controller that listens for the verification.
    public var listeningController: HCITransportSpec
    public var policy: VerificationPolicy
    public var family: AdvertisingFamilyChoice
    /// How the advertiser comes back after a fault while the beacons stay on the air.
    public var restart: RestartPolicy?
    public var commandTimeout: Duration

    public init(
        fleet: Fleet, host: String, advertisingController: HCITransportSpec, listeningController: HCITransportSpec,
        policy: VerificationPolicy = VerificationPolicy(), family: AdvertisingFamilyChoice = .auto,
        restart: RestartPolicy? = RestartPolicy(), commandTimeout: Duration = .seconds(2)
    ) {
        self.fleet = fleet
        self.host = host
        self.advertisingController = advertisingController
        self.listeningController = listeningController
        self.policy = policy
        self.family = family
        self.restart = restart
        self.commandTimeout = commandTimeout
    }
}

/// The `provision` use case: puts this host's beacons on the air from one controller,
/// verifies them from a second one (expecting, for `auto` beacons, the measured power the
/// advertiser actually sent), reports, and keeps advertising until cancelled.
public struct BeaconProvisioner: Sendable {
    public typealias TransportOpener = BeaconAdvertiser.TransportOpener

    public let configuration: ProvisionConfiguration
    let logger: Logger
    let openAdvertisingTransport: TransportOpener
    let readOccupiedSets: OccupiedAdvertisingSetsReader
    let openListeningTransport: TransportOpener
    /// The clock of everything timed: the advertiser, the scan, command timeouts and the
    /// verification's ticks.
    let clock: any Clock<Duration>

    /// Opens both controllers through `platform`, the advertising one recording into
    /// `capture` (`--snoop`) when there is one.
    public init(
        configuration: ProvisionConfiguration, logger: Logger, platform: any ControllerPlatform, capture: BTSnoopWriter? = nil,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        let advertising = ControllerConnection(
            configuration.advertisingController, platform: platform, capture: capture, commandTimeout: configuration.commandTimeout)
        let listening = ControllerConnection(
            configuration.listeningController, platform: platform, commandTimeout: configuration.commandTimeout)
        self.init(
            configuration: configuration, logger: logger, openAdvertisingTransport: advertising.opener,
            readOccupiedSets: advertising.occupiedSetsReader(timeout: configuration.commandTimeout),
            openListeningTransport: listening.opener, clock: clock)
    }

    /// Tests pass in-memory controllers, what bluetoothd holds and a test clock.
    public init(
        configuration: ProvisionConfiguration, logger: Logger, openAdvertisingTransport: @escaping TransportOpener,
        readOccupiedSets: @escaping OccupiedAdvertisingSetsReader, openListeningTransport: @escaping TransportOpener,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.configuration = configuration
        self.logger = logger
        self.clock = clock
        self.openAdvertisingTransport = openAdvertisingTransport
        self.readOccupiedSets = readOccupiedSets
        self.openListeningTransport = openListeningTransport
    }

    /// The manifest beacons this host advertises, as advertising requests.
    public func requests() throws(ProvisionError) -> [AdvertisingRequest] {
        let beacons: [ResolvedBeacon]
        do throws(VerificationPlanError) {
            beacons = try VerificationPlan.beacons(of: configuration.host, in: configuration.fleet)
        } catch {
            throw .plan(error.description)
        }
        do {
            return try beacons.map { beacon throws(AdvertisingError) in try AdvertisingRequest(beacon) }
        } catch {
            throw .plan(error.description)
        }
    }

    /// Runs to the verification's report. With `once`, the beacons are then taken off the
    /// air and the result returned; otherwise they stay on the air until the calling task
    /// is cancelled (SIGINT/SIGTERM in the command), and the result is returned after the
    /// clean stop.
    public func run(
        once: Bool, onEvent: @escaping @Sendable (ProvisionEvent) -> Void
    ) async throws(ProvisionError) -> VerificationResult {
        let requests = try requests()
        let advertiser = BeaconAdvertiser(
            controller: configuration.advertisingController,
            configuration: AdvertiserConfiguration(
                requests: requests, family: configuration.family, restart: once ? nil : configuration.restart,
                commandTimeout: configuration.commandTimeout),
            logger: logger, openTransport: openAdvertisingTransport, readOccupiedSets: readOccupiedSets, clock: clock)

        // The advertiser's events reach the verifying task through a stream, so that the
        // first `started` (what the controller accepted) can be awaited.
        let (sessions, sessionSink) = AsyncStream<AdvertisingSession>.makeStream()
        var verification: Result<VerificationResult, ProvisionError>?
        var advertisingFailure: AdvertisingError?
        await withTaskGroup(of: ChildOutcome.self) { group in
            group.addTask {
                defer { sessionSink.finish() }
                do throws(AdvertisingError) {
                    _ = try await advertiser.run { event in
                        if case .started(let session) = event { sessionSink.yield(session) }
                        onEvent(.advertiser(event))
                    }
                    return .advertiserStopped
                } catch {
                    return .advertiserFailed(error)
                }
            }
            group.addTask {
                var iterator = sessions.makeAsyncIterator()
                // No session: the advertiser failed or the run was cancelled first.
                guard let session = await iterator.next() else { return .neverVerified }
                let verified = await verify(session, onEvent: onEvent)
                if case .success(let result) = verified { onEvent(.verified(result)) }
                return .verified(verified)
            }

            for await outcome in group {
                switch outcome {
                case .verified(let result):
                    verification = result
                    // After the report the beacons stay on the air until the task is
                    // cancelled, unless `once` (or the verification itself failed).
                    if once || (try? result.get()) == nil { group.cancelAll() }
                case .advertiserFailed(let error):
                    advertisingFailure = error
                    group.cancelAll()
                case .advertiserStopped, .neverVerified:
                    break
                }
            }
        }
        // Beacons that went off the air for good outweigh any report: it no longer holds.
        if let advertisingFailure { throw .advertising(advertisingFailure) }
        guard let verification else { throw .stoppedBeforeStart }
        return try verification.get()
    }

    private enum ChildOutcome: Sendable {
        case advertiserStopped
        case advertiserFailed(AdvertisingError)
        case verified(Result<VerificationResult, ProvisionError>)
        case neverVerified
    }

    /// Listens on the second controller and verifies what `session` put on the air.
    private func verify(
        _ session: AdvertisingSession, onEvent: @escaping @Sendable (ProvisionEvent) -> Void
    ) async -> Result<VerificationResult, ProvisionError> {
        var advertised: [BeaconIdentity: Int8] = [:]
        for beacon in session.beacons where beacon.measuredPowerIsEstimated {
            advertised[beacon.identity] = beacon.measuredPower
        }
        let plan: VerificationPlan
        do {
            plan = try VerificationPlan(
                fleet: configuration.fleet, host: configuration.host, advertisedMeasuredPower: advertised,
                plausibleMeasuredPower: configuration.policy.plausibleMeasuredPower)
        } catch {
            return .failure(.plan(error.description))
        }
        let listening = configuration.listeningController
        let verifier = BeaconVerifier(plan: plan, policy: configuration.policy)
        do {
            return .success(try await LiveScan.with(
                opening: openListeningTransport, controller: listening.description,
                commandTimeout: configuration.commandTimeout,
                configuration: ScanConfiguration(access: ControllerAccess(listening)), logger: logger, clock: clock
            ) { scan in
                onEvent(.verifying(expected: plan.expected.count, controller: listening.description))
                return try await verifier.run(
                    scan.sightings, timing: .live, lostBeforehand: scan, telemetry: scan.telemetry, clock: clock
                ) { progress, events in
                    onEvent(.verification(progress, events))
                }
            })
        } catch LiveScanError.unreachable(_, let failure) {
            return .failure(.scanning(controller: listening.description, failure))
        } catch LiveScanError.refused(let failure) {
            return .failure(.scanning(controller: listening.description, failure))
        } catch {
            return .failure(.scanning(controller: listening.description, error))
        }
    }
}
