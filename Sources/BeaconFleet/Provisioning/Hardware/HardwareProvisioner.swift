import BeaconCore
import BeaconProfiles
import FleetManifest
import HCI
import LECentral
import Logging
import Synchronization

/// What `provision --hardware` reports while it runs.
public enum HardwareProvisioningEvent: Sendable {
    case discovering(seconds: Double)
    case heard(connectable: Int, total: Int)
    case connecting(beaconID: String, BluetoothAddress)
    case finished(HardwareBeaconResult)
    case verifying(count: Int)
}

/// The use case of `provision --hardware`: scan, match the manifest's battery beacons,
/// connect to each in turn and bring it to the manifest through its vendor profile
/// (`BeaconProvisioning`), then hear the written beacons on the air (`BeaconVerifier`).
///
/// Everything runs on one controller, the caller's: the discovery scan, the connections
/// (`PeripheralConnector`: beaconctl's own central, or the kernel's on `hciN`; the next beacon
/// pinned by `mac:` connected to while the one before it is written: at most two links at
/// once), then one verification scan for every beacon written or found correct.
public struct HardwareProvisioner: Sendable {
    public let request: HardwareProvisioningRequest
    public let host: HostController
    /// Makes the connections the kernel owns (`hciN`).
    public let platform: any ControllerPlatform
    public let scanConfiguration: ScanConfiguration
    public let logger: Logger
    public let clock: any Clock<Duration>
    /// Asked before a proposed assignment is used (`--assign nearest`); false declines it.
    public let confirm: @Sendable (ResolvedBeacon, DiscoveredPeripheral) async -> Bool
    /// Records `mac:` for an assigned beacon once its read-back matched; returns a problem
    /// in words when the manifest could not be written.
    public let recordAddress: @Sendable (ResolvedBeacon, BluetoothAddress) async -> String?
    /// Called once per write to a beacon (for `--log`).
    public let onWrite: @Sendable (ProvisioningWriteRecord) -> Void
    /// Told as each step of a beacon begins (beacon id, step): where the time goes.
    public let onPhase: @Sendable (String, HardwareProvisioningPhase) -> Void

    public init(
        request: HardwareProvisioningRequest, host: HostController, platform: any ControllerPlatform,
        scanConfiguration: ScanConfiguration, logger: Logger, clock: any Clock<Duration> = ContinuousClock(),
        confirm: @escaping @Sendable (ResolvedBeacon, DiscoveredPeripheral) async -> Bool = { _, _ in true },
        recordAddress: @escaping @Sendable (ResolvedBeacon, BluetoothAddress) async -> String?,
        onWrite: @escaping @Sendable (ProvisioningWriteRecord) -> Void = { _ in },
        onPhase: @escaping @Sendable (String, HardwareProvisioningPhase) -> Void = { _, _ in }
    ) {
        self.request = request
        self.host = host
        self.platform = platform
        self.scanConfiguration = scanConfiguration
        self.logger = logger
        self.clock = clock
        self.confirm = confirm
        self.recordAddress = recordAddress
        self.onWrite = onWrite
        self.onPhase = onPhase
    }

    public func run(
        onEvent: @escaping @Sendable (HardwareProvisioningEvent) -> Void = { _ in }
    ) async throws(HardwareProvisioningError) -> HardwareProvisioningResult {
        let beacons = try request.selectedBeacons()
        onEvent(.discovering(seconds: ScanSession.seconds(request.discoveryWindow)))
        // When every beacon has its mac:, the scan ends once all are heard; a beacon left to
        // --assign nearest needs the whole window to compare strengths.
        let comparing = request.assignNearest && beacons.contains { $0.expectedAddress == nil }
        let wanted = comparing ? [] : Set(beacons.compactMap(\.expectedAddress))
        let heard: [DiscoveredPeripheral]
        do {
            heard = try await ConnectableDiscovery.run(
                host: host, configuration: scanConfiguration, window: request.discoveryWindow, clock: clock, logger: logger,
                until: wanted)
        } catch {
            throw .controller(error.description)
        }
        onEvent(.heard(connectable: heard.filter(\.connectable).count, total: heard.count))
        let matches = HardwareBeaconMatching.match(
            beacons, fleet: request.fleet, heard: heard, assignNearest: request.assignNearest, profile: request.profile)

        let connector: PeripheralConnector
        do {
            connector = try await PeripheralConnector.prepare(
                access: scanConfiguration.access, host: host, platform: platform, clock: clock)
        } catch {
            throw .controller(error.description)
        }
        var results: [HardwareBeaconResult] = []
        // The connection to the next pinned beacon, made while the one before it is written.
        var ahead: (index: Int, task: Task<PeripheralLink?, Never>)?
        for (index, match) in matches.enumerated() {
            if Task.isCancelled {
                // Stopped (SIGINT, SIGTERM): the rest are reported, not silently dropped.
                results.append(HardwareBeaconResult(
                    beaconID: match.beacon.id, address: match.beacon.expectedAddress, status: .unreachable,
                    detail: "not attempted: the run was stopped before this beacon; run again to provision it"))
                continue
            }
            let result: HardwareBeaconResult
            switch match {
            case .unreachable(let beacon, let why):
                result = HardwareBeaconResult(beaconID: beacon.id, address: beacon.expectedAddress, status: .unreachable, detail: why)
            case .unmatched(let beacon, let why):
                result = HardwareBeaconResult(beaconID: beacon.id, address: nil, status: .unmatched, detail: why)
            case .pinned(let beacon, let peripheral):
                onEvent(.connecting(beaconID: beacon.id, peripheral.address))
                onPhase(beacon.id, .connecting)
                var prepared: PeripheralLink?
                if let made = ahead, made.index == index {
                    // Its own task: a stop (SIGINT) reaches it through this wait.
                    prepared = await withTaskCancellationHandler { await made.task.value } onCancel: { made.task.cancel() }
                }
                ahead = nil
                do {
                    let connection = try await connect(peripheral, connector: connector, prepared: prepared)
                    // The next pinned beacon is connected to while this one is written: waiting
                    // for its advertisement is most of a connection's set-up (a factory KBeacon
                    // advertises once a second), and the controller has room for both links.
                    ahead = connectAhead(matches, after: index, connector: connector)
                    result = await provision(beacon, peripheral, on: connection, assigned: false)
                } catch {
                    result = HardwareBeaconResult(beaconID: beacon.id, address: peripheral.address, status: .unreachable, detail: error.description)
                }
            case .proposed(let beacon, let peripheral):
                if await confirm(beacon, peripheral) {
                    onEvent(.connecting(beaconID: beacon.id, peripheral.address))
                    onPhase(beacon.id, .connecting)
                    do {
                        let connection = try await connect(peripheral, connector: connector, prepared: nil)
                        result = await provision(beacon, peripheral, on: connection, assigned: true)
                    } catch {
                        result = HardwareBeaconResult(
                            beaconID: beacon.id, address: peripheral.address, status: .unreachable, detail: error.description)
                    }
                } else {
                    result = HardwareBeaconResult(
                        beaconID: beacon.id, address: nil, status: .unmatched,
                        detail: "\(peripheral.address) was not assigned to it (declined)")
                }
            }
            onEvent(.finished(result))
            results.append(result)
        }
        if let ahead {
            // Stopped before its turn: the attempt is cancelled on the controller, a link made is ended.
            ahead.task.cancel()
            await ahead.task.value?.disconnect()
        }
        if !request.dryRun && !Task.isCancelled {
            results = try await verify(results, onEvent: onEvent)
        }
        return HardwareProvisioningResult(results: results, dryRun: request.dryRun)
    }

    // MARK: One beacon

    /// The connection to `peripheral`: the one made ahead when it is still up, else a new one
    /// (made again as it would have been without the head start, when that one failed or
    /// dropped meanwhile).
    private func connect(
        _ peripheral: DiscoveredPeripheral, connector: PeripheralConnector, prepared: PeripheralLink?
    ) async throws(LECentralError) -> PeripheralLink {
        if let prepared, prepared.isUp() { return prepared }
        return try await connector.connect(to: peripheral.address, type: Self.peerType(of: peripheral), timeout: request.connectTimeout)
    }

    /// Starts connecting to the match after `index` when it is the next one to connect to and
    /// pinned by `mac:` (a proposal is asked about first, so it is not connected to ahead).
    private func connectAhead(
        _ matches: [HardwareBeaconMatch], after index: Int, connector: PeripheralConnector
    ) -> (index: Int, task: Task<PeripheralLink?, Never>)? {
        let next = matches[(index + 1)...].firstIndex {
            switch $0 {
            case .pinned, .proposed: true
            case .unreachable, .unmatched: false
            }
        }
        guard let next, case .pinned(_, let peripheral) = matches[next] else { return nil }
        let type = Self.peerType(of: peripheral)
        let timeout = request.connectTimeout
        return (next, Task { try? await connector.connect(to: peripheral.address, type: type, timeout: timeout) })
    }

    private static func peerType(of peripheral: DiscoveredPeripheral) -> PeerAddressType {
        peripheral.addressType == .public || peripheral.addressType == .publicIdentity ? .public : .random
    }

    private func provision(
        _ beacon: ResolvedBeacon, _ peripheral: DiscoveredPeripheral, on connection: PeripheralLink, assigned: Bool
    ) async -> HardwareBeaconResult {
        var result = HardwareBeaconResult(beaconID: beacon.id, address: peripheral.address, status: .unreachable, detail: "")
        let phase = onPhase
        let beaconID = beacon.id
        phase(beaconID, .openingProfile)
        let profile: any BeaconProfile
        switch await open(peripheral, on: connection) {
        case .success(let opened):
            profile = PhaseAnnouncingProfile(opened) { phase(beaconID, $0) }
        case .failure(let failure):
            result.status = failure.status
            result.detail = failure.detail
            phase(beaconID, .disconnecting)
            await connection.disconnect()
            return result
        }
        result.profile = profile.name
        result = await provision(beacon, peripheral, through: profile, into: result)
        phase(beaconID, .disconnecting)
        await connection.disconnect()
        if assigned, result.status == .provisioned || result.status == .alreadyCorrect {
            phase(beaconID, .recordingAddress)
            if let problem = await recordAddress(beacon, peripheral.address) {
                result.detail += "; mac: not written into the manifest: \(problem)"
            } else {
                result.addressAssigned = true
            }
        }
        return result
    }

    private struct OpenFailure: Error {
        var status: HardwareBeaconStatus
        var detail: String
    }

    /// The profile the request names, or the one the advertisement or the GATT services show
    /// (beaconctl's own first, then the shipped declarative profiles).
    private func open(_ peripheral: DiscoveredPeripheral, on connection: PeripheralLink) async -> Result<any BeaconProfile, OpenFailure> {
        var choice = request.profile
        let declarative = ShippedProfiles.all
        if choice == .auto { choice = peripheral.advertisedProfile(among: declarative) ?? .auto }
        do {
            switch choice {
            case .kbeacon:
                return .success(try await KBeaconProfile.open(gatt: connection.gatt, address: connection.peer))
            case .eddystoneGATT:
                return .success(try await EddystoneGATTProfile.open(gatt: connection.gatt))
            case .declarative(let definition):
                return .success(try await DeclarativeProfile.open(definition, gatt: connection.gatt))
            case .auto:
                if let profile = try await openFromServices(connection) { return .success(profile) }
                let shipped = declarative.isEmpty ? "" : " or of the shipped profiles (\(declarative.map(\.name).joined(separator: ", ")))"
                return .failure(OpenFailure(
                    status: .unsupported,
                    detail: "no known profile: neither its advertisement nor its GATT services are those of a KBeacon (0xFEA0), the Eddystone configuration service\(shipped); name one with --profile, or give a profile file for its vendor's table (docs/profiles.md)"))
            }
        } catch {
            if case .notThisProfile = error.kind { return .failure(OpenFailure(status: .unsupported, detail: error.description)) }
            return .failure(OpenFailure(status: .unreachable, detail: error.description))
        }
    }

    /// The profile whose service the beacon has, `nil` when neither. Each profile's opening
    /// discovers the services itself and says `notThisProfile` before sending anything else:
    /// trying the KBeacon's first (the one that carries an iBeacon identity) discovers them
    /// once for a KBeacon, rather than once here and again in the profile.
    private func openFromServices(_ connection: PeripheralLink) async throws(BeaconProfileError) -> (any BeaconProfile)? {
        do {
            return try await KBeaconProfile.open(gatt: connection.gatt, address: connection.peer)
        } catch {
            guard case .notThisProfile = error.kind else { throw error }
        }
        do {
            return try await EddystoneGATTProfile.open(gatt: connection.gatt)
        } catch {
            guard case .notThisProfile = error.kind else { throw error }
        }
        // The shipped declarative profiles whose service and table the beacon has; opening
        // one discovers and sends nothing else. Two that fit cannot be told apart here.
        var fitting: [DeclarativeProfile] = []
        for definition in ShippedProfiles.all {
            do {
                fitting.append(try await DeclarativeProfile.open(definition, gatt: connection.gatt))
            } catch {
                guard case .notThisProfile = error.kind else { throw error }
            }
        }
        if fitting.count > 1 {
            throw BeaconProfileError(
                context: connection.gatt.att.context,
                kind: .notThisProfile(
                    "several shipped profiles fit its GATT services (\(fitting.map(\.name).joined(separator: ", "))) and its advertisement tells none apart: name one with --profile"))
        }
        return fitting.first
    }

    /// One `BeaconProvisioning` run, its outcome worded as a result.
    private func provision(
        _ beacon: ResolvedBeacon, _ peripheral: DiscoveredPeripheral, through profile: any BeaconProfile,
        into start: HardwareBeaconResult
    ) async -> HardwareBeaconResult {
        var result = start
        let target = HardwareProvisioningRequest.target(for: beacon)
        if !profile.writableFields.contains(.uuid) {
            // Said plainly before anything is sent: the identity is what provisioning is for.
            result.status = .unsupported
            result.detail = "the \(profile.name) profile cannot carry an iBeacon identity (\(profile.whyNotWritable(.uuid))); nothing was sent: provision this beacon with its vendor's own profile"
            return result
        }
        let review = ReviewState()
        let others = Dictionary(
            request.fleet.beacons.filter { $0.id != beacon.id }.map { ($0.identity, $0.id) }, uniquingKeysWith: { first, _ in first })
        let dryRun = request.dryRun
        let force = request.force
        let outcome: ProvisioningOutcome
        do {
            outcome = try await BeaconProvisioning.run(
                profile, password: request.password, target: target, newPassword: request.newPassword
            ) { reading, fields in
                if !fields.isEmpty, let held = reading.settings.identity, let owner = others[held], !force {
                    return .stop("it advertises \(owner)'s identity (\(held)): not overwritten; check which beacon this is, or pass --force to overwrite it")
                }
                if dryRun { return .stop("dry run") }
                review.started(fields)
                return .proceed
            }
        } catch {
            return failed(error, result, review: review, target: target, beacon: beacon, address: peripheral.address, profile: profile)
        }
        switch outcome {
        case .refused(let refusal):
            result.status = .refused
            result.detail = "\(refusal)"
        case .stopped(let stopped):
            if stopped.reason == "dry run" {
                result.status = stopped.differences.isEmpty ? .alreadyCorrect : .dryRun
                result.wouldWrite = stopped.differences
                result.detail = stopped.differences.isEmpty
                    ? "holds the manifest's settings (dry run: nothing written)"
                    : "would write \(Self.fields(stopped.differences, of: target)) (dry run: nothing written)"
            } else {
                result.status = .conflict
                result.detail = stopped.reason
            }
        case .provisioned(let report):
            result.written = report.written
            result.passwordChanged = report.passwordChanged
            result.status = report.written.isEmpty ? .alreadyCorrect : .provisioned
            result.detail = report.written.isEmpty
                ? "held the manifest's settings: nothing written"
                : "wrote \(Self.fields(report.written, of: target)), read back equal"
            if report.passwordChanged { result.detail += "; password changed" }
            if !report.written.isEmpty || report.passwordChanged {
                log(beacon, peripheral.address, profile: profile, fields: report.written, target: target, passwordChanged: report.passwordChanged, outcome: "written")
            }
        }
        return result
    }

    private func failed(
        _ error: BeaconProfileError, _ start: HardwareBeaconResult, review: ReviewState, target: BeaconSettings,
        beacon: ResolvedBeacon, address: BluetoothAddress, profile: any BeaconProfile
    ) -> HardwareBeaconResult {
        var result = start
        let asked = review.fields
        if case .unsupported(let field, let why) = error.kind {
            result.status = .unsupported
            result.detail = "the \(profile.name) profile cannot write \(field): \(why); nothing was sent"
            return result
        }
        guard let asked else {
            // Nothing was written: the beacon stays as it was.
            result.status = .unreachable
            result.detail = error.description
            return result
        }
        result.status = .partlyWritten
        if case .notApplied(let fields) = error.kind {
            result.written = asked.filter { !fields.contains($0) }
            result.notWritten = fields
        } else if asked.isEmpty {
            // Settings were right; the new password's change did not complete.
            result.detail = "settings correct, but the new password was not confirmed: \(error.description); try the old password and the new one on the next run"
            log(beacon, address, profile: profile, fields: [], target: target, passwordChanged: false, outcome: "password not confirmed")
            return result
        } else {
            // The link or the beacon failed while writing: which fields it took is unknown.
            result.notWritten = asked
        }
        result.detail = "not finished: \(error.description); run again to finish (fields already right are not written twice)"
        log(beacon, address, profile: profile, fields: result.written, target: target, passwordChanged: false, outcome: "partly-written: not confirmed \(result.notWritten.map(\.rawValue).joined(separator: ","))")
        return result
    }

    private func log(
        _ beacon: ResolvedBeacon, _ address: BluetoothAddress, profile: any BeaconProfile, fields: [BeaconField], target: BeaconSettings, passwordChanged: Bool,
        outcome: String
    ) {
        var values: [String: String] = [:]
        for field in fields { values[field.rawValue] = target.text(of: field) }
        onWrite(ProvisioningWriteRecord(
            time: WallClock.iso8601(WallClock.unixTime()) ?? "", beacon: beacon.id, address: "\(address)",
            profile: profile.name, values: values, passwordChanged: passwordChanged, outcome: outcome))
    }

    static func fields(_ fields: [BeaconField], of target: BeaconSettings) -> String {
        fields.map { "\($0)=\(target.text(of: $0) ?? "?")" }.joined(separator: " ")
    }

    // MARK: Verification

    /// One pass for every beacon written or found correct: heard with its manifest identity.
    private func verify(
        _ results: [HardwareBeaconResult], onEvent: @escaping @Sendable (HardwareProvisioningEvent) -> Void
    ) async throws(HardwareProvisioningError) -> [HardwareBeaconResult] {
        let toVerify = Set(results.filter { $0.status == .provisioned || $0.status == .alreadyCorrect }.map(\.beaconID))
        guard !toVerify.isEmpty else { return results }
        var expected: [ExpectedBeacon] = []
        var others: [BeaconIdentity: String] = [:]
        let addresses = Dictionary(results.compactMap { result in result.address.map { (result.beaconID, $0) } }, uniquingKeysWith: { a, _ in a })
        for beacon in request.fleet.beacons {
            if toVerify.contains(beacon.id) {
                var pinned = beacon
                pinned.expectedAddress = addresses[beacon.id] ?? beacon.expectedAddress
                expected.append(ExpectedBeacon(pinned, advertisedMeasuredPower: nil, plausibleRange: request.policy.plausibleMeasuredPower))
            } else {
                others[beacon.identity] = beacon.id
            }
        }
        let plan: VerificationPlan
        do {
            plan = try VerificationPlan(expected: expected, otherKnown: others, scope: "battery beacons provisioned")
        } catch {
            throw .usage(error.description)
        }
        onEvent(.verifying(count: expected.count))
        let scanner = BeaconScanner(host: host, configuration: scanConfiguration, logger: logger, clock: clock)
        let verification: VerificationResult
        do {
            let session = try await scanner.start()
            let verifier = BeaconVerifier(plan: plan, policy: request.policy)
            do {
                verification = try await verifier.run(
                    session.sightings, timing: .live, lostBeforehand: session, telemetry: session.telemetry, clock: clock)
            } catch {
                await session.stop()
                throw HardwareProvisioningError.controller("the verification scan ended: \(error)")
            }
            await session.stop()
        } catch let error as HardwareProvisioningError {
            throw error
        } catch {
            throw .controller("the verification scan could not start: \(error)")
        }
        let verdicts = Dictionary(verification.verdicts.map { ($0.beacon.beaconID, $0) }, uniquingKeysWith: { a, _ in a })
        return results.map { result in
            guard toVerify.contains(result.beaconID), let verdict = verdicts[result.beaconID] else { return result }
            var verified = result
            verified.verdict = verdict.status.rawValue
            if verdict.passed {
                verified.detail += "; verified on the air"
            } else {
                verified.status = .notVerified
                verified.detail += "; not verified on the air: \(verdict.status.rawValue): \(verdict.explanation(in: verification))"
            }
            return verified
        }
    }
}

/// Which fields a run went on to write, set from the review (on the profile's task) and
/// read after the run: `nil` until writing started.
private final class ReviewState: Sendable {
    private let state = Mutex<[BeaconField]?>(nil)
    func started(_ fields: [BeaconField]) { state.withLock { $0 = fields } }
    var fields: [BeaconField]? { state.withLock { $0 } }
}
