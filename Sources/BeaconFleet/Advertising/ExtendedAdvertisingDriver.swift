import HCI
import Synchronization

/// Extended advertising (Core v5.4 Vol 4 Part E 7.8.52–7.8.60): one advertising set per
/// beacon, handles 0…n−1, all on the air at once.
///
/// Each set sends legacy ADV_NONCONN_IND PDUs (properties 0x0010), which every scanner
/// hears, from a static random address derived from the controller and the beacon
/// (`BeaconAddress`), at the TX power the set reports back.
final class ExtendedAdvertisingDriver: AdvertisingDriver {
    let commands: SessionCommands
    let controller: ControllerInfo
    let requests: [AdvertisingRequest]
    /// Handles of the sets created so far, for `stop` after a partial start.
    private let createdHandles = Mutex<[AdvertisingHandle]>([])

    init(commands: SessionCommands, controller: ControllerInfo, requests: [AdvertisingRequest]) {
        self.commands = commands
        self.controller = controller
        self.requests = requests
    }

    func start() async throws(AdvertisingError) -> AdvertisingStart {
        let supported = try await commands.send(
            LEReadNumberOfSupportedAdvertisingSets(), "reading the number of advertising sets")
        // Handles go up to 0xEF: more sets than that cannot be named.
        let usable = min(Int(supported), Int(AdvertisingHandle.validRange.upperBound) + 1)
        guard requests.count <= usable else {
            throw .tooManyBeacons(controller: controller.name, requested: requests.count, supported: usable)
        }

        var warnings: [String] = []
        var beacons: [AcceptedBeacon] = []
        for (index, request) in requests.enumerated() {
            guard let handle = AdvertisingHandle(rawValue: UInt8(truncatingIfNeeded: index)) else {
                throw .tooManyBeacons(controller: controller.name, requested: requests.count, supported: usable)
            }
            let beacon = try await createSet(handle: handle, request: request)
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
            try await commands.send(enable, "enabling \(chunk.count) advertising set\(chunk.count == 1 ? "" : "s")")
        }
        return AdvertisingStart(beacons: beacons, rotationSlot: nil, warnings: warnings)
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
