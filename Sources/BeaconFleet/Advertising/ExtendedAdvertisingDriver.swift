import BeaconCore
import HCI
import Synchronization

/// Extended advertising (Core v5.4 Vol 4 Part E 7.8.52–7.8.60): one advertising set per
/// beacon, all on the air at once; `AdvertisingSetAllocation` chooses the handles (0…n−1 on
/// an exclusive controller, free ones from the top down next to bluetoothd's).
///
/// Each set sends legacy ADV_NONCONN_IND PDUs (properties 0x0010), which every scanner
/// hears, from a static random address derived from the controller and the beacon
/// (`BeaconAddress`), at the TX power the set reports back.
final class ExtendedAdvertisingDriver: AdvertisingDriver {
    let commands: SessionCommands
    let controller: ControllerInfo
    let requests: [AdvertisingRequest]
    /// On a controller shared with the kernel: the sets another program holds there.
    let readOccupiedSets: OccupiedAdvertisingSetsReader
    /// Handles of the sets created so far, for `stop` after a partial start.
    private let createdHandles = Mutex<[AdvertisingHandle]>([])

    init(
        commands: SessionCommands, controller: ControllerInfo, requests: [AdvertisingRequest],
        readOccupiedSets: @escaping OccupiedAdvertisingSetsReader
    ) {
        self.commands = commands
        self.controller = controller
        self.requests = requests
        self.readOccupiedSets = readOccupiedSets
    }

    func start() async throws(AdvertisingError) -> AdvertisingStart {
        let supported = try await commands.send(
            LEReadNumberOfSupportedAdvertisingSets(), "reading the number of advertising sets")
        var shared: (index: UInt16, occupied: OccupiedAdvertisingSets)?
        if case .sharedWithKernel(let index) = controller.access {
            let occupied = try await readOccupiedSets(index)
            shared = (index, occupied)
        }
        // Every refusal for want of sets comes here, before any set is made.
        let allocation = try AdvertisingSetAllocation.allocate(
            beacons: requests.count, supported: supported, shared: shared, controller: controller.name)

        var warnings: [String] = []
        var beacons: [AcceptedBeacon] = []
        var spares = allocation.spares
        for (request, handle) in zip(requests, allocation.handles) {
            let (beacon, warning) = try await createSet(
                preferring: handle, spares: &spares, sharedIndex: shared?.index, request: request)
            if let warning { warnings.append(warning) }
            if beacon.txPower != request.txPower {
                warnings.append(
                    "beacon \(request.label): asked for \(request.txPower) dBm, \(controller.name) chose \(beacon.txPower) dBm")
            }
            beacons.append(beacon)
        }

        // One command enables at most 63 sets.
        let handles = beacons.compactMap(\.handle)
        for start in stride(from: 0, to: handles.count, by: LESetExtendedAdvertisingEnable.maximumSetCount) {
            let chunk = Array(handles[start..<min(start + LESetExtendedAdvertisingEnable.maximumSetCount, handles.count)])
            let enable: LESetExtendedAdvertisingEnable
            do {
                enable = try LESetExtendedAdvertisingEnable(enabling: chunk)
            } catch {
                throw .invalidRequest("\(controller.name): \(error.message)")
            }
            try await commands.send(enable, "enabling \(NumberText.count(chunk.count, "advertising set"))")
        }
        return AdvertisingStart(beacons: beacons, rotationSlot: nil, warnings: warnings)
    }

    /// Creates the beacon's set on `preferred`. On a shared controller a set another program
    /// has enabled since its sets were read refuses new parameters with Command Disallowed
    /// (Core v5.4 Vol 4 Part E 7.8.53): the beacon then takes the best spare handle, once,
    /// and the returned warning says so. The refused set is not ours, so it is never touched again.
    private func createSet(
        preferring preferred: AdvertisingHandle, spares: inout [AdvertisingHandle], sharedIndex: UInt16?,
        request: AdvertisingRequest
    ) async throws(AdvertisingError) -> (AcceptedBeacon, warning: String?) {
        do throws(AdvertisingError) {
            return (try await createSet(handle: preferred, request: request), nil)
        } catch let error where sharedIndex != nil && error.isSetInUse {
            guard let index = sharedIndex, let spare = spares.first else {
                throw .setsTaken(
                    controller: controller.name, index: sharedIndex ?? 0, beacon: request.label, handles: [preferred.rawValue])
            }
            spares.removeFirst()
            do throws(AdvertisingError) {
                let beacon = try await createSet(handle: spare, request: request)
                let warning = "\(controller.name): \(preferred) was taken by another program (usually bluetoothd) after "
                    + "beaconctl read which advertising sets were in use; beacon \(request.label) uses \(spare) instead"
                return (beacon, warning)
            } catch let error where error.isSetInUse {
                throw .setsTaken(
                    controller: controller.name, index: index, beacon: request.label,
                    handles: [preferred.rawValue, spare.rawValue])
            }
        }
    }

    private func createSet(handle: AdvertisingHandle, request: AdvertisingRequest) async throws(AdvertisingError) -> AcceptedBeacon {
        let label = request.label
        let parameters: LESetExtendedAdvertisingParameters
        do {
            parameters = try LESetExtendedAdvertisingParameters(
                handle: handle, properties: .legacyNonConnectable, intervalMin: request.interval,
                intervalMax: request.interval, channelMap: .all, ownAddressType: .random,
                txPower: request.txPower, primaryPHY: .le1M, secondaryPHY: .le1M,
                // SID is 4 bits; legacy PDUs carry no SID on the air, so the wrap is harmless.
                sid: handle.rawValue & 0x0F)
        } catch {
            throw .invalidRequest("beacon \(label): \(error.message)")
        }
        let selectedTxPower = try await commands.send(
            parameters, "creating \(handle) for beacon \(label) (ADV_NONCONN_IND every \(request.interval))")
        createdHandles.withLock { $0.append(handle) }

        let address = BeaconAddress.staticRandom(controller: controller.address, identity: request.identity)
        try await commands.send(
            LESetAdvertisingSetRandomAddress(handle: handle, address: address),
            "setting the address \(address) of \(handle) for beacon \(label)")

        let beacon = AcceptedBeacon(
            request: request, interval: request.interval, txPower: selectedTxPower,
            measuredPower: request.measuredPower(advertisingAt: selectedTxPower), address: address,
            addressType: .random, handle: handle)
        let data: LESetExtendedAdvertisingData
        do {
            data = try LESetExtendedAdvertisingData(
                handle: handle, operation: .complete, data: beacon.advertisement.advertisingData)
        } catch {
            throw .invalidRequest("beacon \(label): \(error.message)")
        }
        try await commands.send(data, "setting the advertising data of \(handle) for beacon \(label)")
        return beacon
    }

    /// Sets need no upkeep: the controller advertises them on its own.
    func maintain(_ session: AdvertisingSession) async -> AdvertisingFault? { nil }

    func stop() async -> StopAcknowledgement {
        let handles = createdHandles.withLock { $0 }
        var acknowledgement = StopAcknowledgement()
        guard !handles.isEmpty else { return acknowledgement }
        switch controller.access {
        case .exclusive:
            // Num_Sets 0 with Enable 0 disables every set (Core v5.4 Vol 4 Part E 7.8.56).
            acknowledgement.record(await commands.sendBestEffort(LESetExtendedAdvertisingEnable.disableAll))
            acknowledgement.record(await commands.sendBestEffort(LEClearAdvertisingSets()))
        case .sharedWithKernel:
            // bluetoothd may have sets of its own on this controller: touch only ours.
            for start in stride(from: 0, to: handles.count, by: LESetExtendedAdvertisingEnable.maximumSetCount) {
                let chunk = handles[start..<min(start + LESetExtendedAdvertisingEnable.maximumSetCount, handles.count)]
                if let disable = try? LESetExtendedAdvertisingEnable(false, sets: chunk.map { .init(handle: $0) }) {
                    acknowledgement.record(await commands.sendBestEffort(disable))
                }
            }
            for handle in handles {
                acknowledgement.record(await commands.sendBestEffort(LERemoveAdvertisingSet(handle: handle)))
            }
        }
        createdHandles.withLock { $0.removeAll() }
        return acknowledgement
    }
}

/// Reads which advertising sets another program holds on kernel controller `hci<index>`.
public typealias OccupiedAdvertisingSetsReader =
    @Sendable (_ index: UInt16) async throws(AdvertisingError) -> OccupiedAdvertisingSets

extension AdvertisingError {
    /// LE Set Extended Advertising Parameters refused with Command Disallowed: the set exists
    /// and is advertising, which on a shared controller means another program's set. (The
    /// other command family cannot be the cause there: LE Read Number of Supported
    /// Advertising Sets, of the extended family, already succeeded.)
    var isSetInUse: Bool {
        guard case .command(let error, _) = self else { return false }
        return error.opcode == .leSetExtendedAdvertisingParameters && error.status == .commandDisallowed
    }
}
