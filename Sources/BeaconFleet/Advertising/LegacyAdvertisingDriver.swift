import BeaconCore
import HCI
import Synchronization

/// Legacy advertising (Core v5.4 Vol 4 Part E 7.8.5–7.8.9): one advertisement per
/// controller. One beacon advertises continuously; several take turns, the data changing
/// every slot, so each is on the air once every `slot × count`.
///
/// The advertisement comes from the controller's public address; a controller without one
/// (all-zero BD_ADDR, common on development boards) advertises from the static random
/// address derived for the first beacon, set with LE Set Random Address.
final class LegacyAdvertisingDriver: AdvertisingDriver {
    let commands: SessionCommands
    let controller: ControllerInfo
    let requests: [AdvertisingRequest]
    /// The rotation slot asked for; `nil` for one advertising interval.
    let rotationSlot: Duration?
    /// The clock of the rotation's schedule (the advertiser's).
    let clock: any Clock<Duration>
    /// Whether LE Set Advertising Enable went out: only then is there something to disable
    /// (and on a shared controller a needless legacy command could itself be refused).
    private let enableSent = Mutex(false)

    init(
        commands: SessionCommands, controller: ControllerInfo, requests: [AdvertisingRequest], rotationSlot: Duration?,
        clock: any Clock<Duration>
    ) {
        self.commands = commands
        self.controller = controller
        self.requests = requests
        self.rotationSlot = rotationSlot
        self.clock = clock
    }

    func start() async throws(AdvertisingError) -> AdvertisingStart {
        guard let first = requests.first, let interval = requests.map(\.interval).min() else {
            throw .invalidRequest("no beacons to advertise")
        }
        var warnings: [String] = []
        if Set(requests.map(\.interval)).count > 1 {
            warnings.append(
                "legacy advertising gives all beacons of a controller one interval: \(interval), the shortest asked")
        }
        if interval.units < AdvertisingInterval.legacyNonConnectableMinimumUnits && controller.version.hciVersion < .v5_0 {
            warnings.append(
                "\(controller.name) is a Bluetooth \(controller.version.hciVersion) controller; those may refuse "
                    + "non-connectable advertising below 100 ms (asked \(interval))")
        }

        let addressType: OwnAddressType
        let address: BluetoothAddress
        if controller.hasPublicAddress {
            (address, addressType) = (controller.address, .public)
        } else {
            (address, addressType) = (BeaconAddress.staticRandom(controller: controller.address, identity: first.identity), .random)
            try await commands.send(LESetRandomAddress(address: address), "setting the static random address \(address)")
        }

        let parameters: LESetAdvertisingParameters
        do {
            parameters = try LESetAdvertisingParameters(
                intervalMin: interval, intervalMax: interval, type: .nonConnectableUndirected,
                ownAddressType: addressType, channelMap: .all)
        } catch {
            throw .invalidRequest("\(controller.name): \(error.message)")
        }
        var parametersContext = "setting legacy advertising parameters (ADV_NONCONN_IND every \(interval))"
        if interval.units < AdvertisingInterval.legacyNonConnectableMinimumUnits {
            parametersContext += "; controllers before Bluetooth 5.0 refuse non-connectable advertising below 100 ms"
        }
        try await commands.send(parameters, parametersContext)

        // Legacy advertising cannot ask for a power: read the one the controller uses.
        let txPower = try await commands.send(LEReadAdvertisingPhysicalChannelTxPower(), "reading the advertising TX power")
        if requests.contains(where: { $0.txPower != txPower }) {
            warnings.append(
                "legacy advertising cannot choose a TX power: \(controller.name) advertises at \(txPower) dBm "
                    + "(asked \(Set(requests.map(\.txPower)).sorted().map { "\($0)" }.joined(separator: ", ")) dBm)")
        }
        let beacons = requests.map { request in
            AcceptedBeacon(
                request: request, interval: interval, txPower: txPower,
                measuredPower: request.measuredPower(advertisingAt: txPower), address: address,
                addressType: addressType, handle: nil)
        }
        guard let firstBeacon = beacons.first else { throw .invalidRequest("no beacons to advertise") }
        try await setData(of: firstBeacon)
        enableSent.withLock { $0 = true }
        try await commands.send(LESetAdvertisingEnable(true), "enabling advertising")

        let slot = beacons.count > 1 ? (rotationSlot ?? .microseconds(interval.microseconds)) : nil
        return AdvertisingStart(beacons: beacons, rotationSlot: slot, warnings: warnings)
    }

    /// Rotation: the next beacon's data every slot, on a fixed schedule (a late slot does
    /// not shift the ones after it; after a long stall the schedule restarts from now).
    func maintain(_ session: AdvertisingSession) async -> AdvertisingFault? {
        guard let slot = session.rotationSlot, session.beacons.count > 1 else { return nil }
        // The schedule as times since rotation started.
        let sinceStart = Stopwatch(on: clock)
        var next = slot
        var index = 1
        while true {
            do {
                try await clock.sleep(for: next - sinceStart.elapsed)
            } catch {
                return nil
            }
            let beacon = session.beacons[index % session.beacons.count]
            do {
                try await setData(of: beacon)
            } catch {
                if Task.isCancelled { return nil }
                if case .command(let failure, _) = error { return .commandFailed(failure) }
                return .commandFailed(HCIError(
                    controller: controller.name, opcode: LESetAdvertisingData.opcode,
                    kind: .unexpectedAnswer(error.description)))
            }
            index = (index + 1) % session.beacons.count
            next += slot
            let now = sinceStart.elapsed
            if next < now { next = now + slot }
        }
    }

    func stop() async -> StopAcknowledgement {
        var acknowledgement = StopAcknowledgement()
        guard enableSent.withLock({ $0 }) else { return acknowledgement }
        acknowledgement.record(await commands.sendBestEffort(LESetAdvertisingEnable(false)))
        enableSent.withLock { $0 = false }
        return acknowledgement
    }

    private func setData(of beacon: AcceptedBeacon) async throws(AdvertisingError) {
        let command: LESetAdvertisingData
        do {
            command = try LESetAdvertisingData(data: beacon.advertisement.advertisingData)
        } catch {
            throw .invalidRequest("\(controller.name): \(error.message)")
        }
        try await commands.send(command, "setting the advertising data of beacon \(beacon.request.label)")
    }
}
