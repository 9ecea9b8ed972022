import BeaconCore
import HCI
import Testing

@testable import VirtualRadio

/// A host on a virtual controller: our `HostController`, subscribed before anything is
/// sent, with a way to collect every event the controller sent up to now.
final class TestHost {
    let transport: VirtualControllerTransport
    let host: HostController
    private var events: AsyncStream<HostControllerEvent>.AsyncIterator

    init(on air: VirtualAir, _ configuration: VirtualControllerConfiguration = VirtualControllerConfiguration()) async {
        transport = air.attachController(configuration)
        // The virtual controller answers every command at once: the timeout is a safety
        // net, long enough that a machine busy with other tests never reaches it.
        host = HostController(transport: transport, defaultTimeout: .seconds(60))
        // Virtual time delivers a whole step at once: room for everything a test produces.
        events = await host.events(bufferSize: 1 << 20).makeAsyncIterator()
    }

    static func at(_ x: Double, _ y: Double, on air: VirtualAir) async -> TestHost {
        await TestHost(on: air, .at(PlanPoint(x: x, y: y)))
    }

    var controller: VirtualControllerID { transport.controller }

    /// Reset, then both event masks as beaconctl sets them (LE Meta and the report events on).
    func bringUp(eventMask: HCIEventMask = .beaconHost, leEventMask: LEEventMask = .beaconHost) async throws {
        try await host.send(Reset())
        try await host.send(SetEventMask(mask: eventMask))
        try await host.send(LESetEventMask(mask: leEventMask))
    }

    /// Every event received since the last call, in order, except the answers to commands
    /// (Command Complete and Command Status).
    ///
    /// A Read BD_ADDR sent now is answered after everything already delivered; the host
    /// hands events to subscribers in order, so its answer closes the batch.
    func receivedEvents() async throws -> [HCIEvent] {
        _ = try await host.send(ReadBDADDR())
        var collected: [HCIEvent] = []
        while let element = await events.next() {
            guard case .event(let event) = element else { continue }
            switch event {
            case .commandComplete(let complete):
                if complete.opcode == .readBDADDR { return collected }
            case .commandStatus:
                break
            default:
                collected.append(event)
            }
        }
        return collected
    }

    /// The legacy advertising reports received since the last collection.
    func advertisingReports() async throws -> [LEAdvertisingReport] {
        try await receivedEvents().flatMap { event -> [LEAdvertisingReport] in
            if case .le(.advertisingReport(let reports)) = event { return reports }
            return []
        }
    }

    /// The extended advertising reports received since the last collection.
    func extendedReports() async throws -> [LEExtendedAdvertisingReport] {
        try await receivedEvents().flatMap { event -> [LEExtendedAdvertisingReport] in
            if case .le(.extendedAdvertisingReport(let reports)) = event { return reports }
            return []
        }
    }

    /// Sends a raw command (any bytes) and returns the controller's answer as it came.
    func raw(_ opcode: UInt16, _ parameters: [UInt8] = []) async throws -> HCICommandAnswer {
        try await host.send(try HCICommandPacket(opcode: HCIOpcode(rawValue: opcode), parameters: parameters))
    }

    /// The status a typed command was refused with; `nil` when it succeeded.
    func refusal<Command: HCICommand>(_ command: Command) async -> HCIStatus? {
        do {
            _ = try await host.send(command)
            return nil
        } catch {
            return error.status
        }
    }

    // MARK: Bring-ups used across tests

    /// Legacy ADV_NONCONN_IND of `data` every `interval`, from the public address.
    func advertiseLegacy(_ data: [UInt8], interval: AdvertisingInterval = .beaconDefault) async throws {
        try await host.send(LESetAdvertisingParameters(intervalMin: interval, intervalMax: interval))
        try await host.send(LESetAdvertisingData(data: data))
        try await host.send(LESetAdvertisingEnable(true))
    }

    /// Legacy passive scanning, continuous (window = interval) unless told otherwise.
    func scanLegacy(interval: Double = 10, window: Double = 10, filterDuplicates: Bool = false) async throws {
        try await host.send(LESetScanParameters(
            interval: try ScanInterval(milliseconds: interval), window: try ScanInterval(milliseconds: window)))
        try await host.send(LESetScanEnable(true, filterDuplicates: filterDuplicates))
    }

    /// One extended set per payload (handles 0, 1, …), legacy non-connectable PDUs at
    /// `txPower`, enabled together.
    @discardableResult
    func advertiseExtended(_ payloads: [[UInt8]], txPower: Int8? = 0, interval: AdvertisingInterval = .beaconDefault) async throws -> [Int8] {
        var selected: [Int8] = []
        var handles: [AdvertisingHandle] = []
        for (index, payload) in payloads.enumerated() {
            let handle = try #require(AdvertisingHandle(rawValue: UInt8(index)))
            selected.append(try await host.send(LESetExtendedAdvertisingParameters(
                handle: handle, intervalMin: interval, intervalMax: interval, txPower: txPower)))
            try await host.send(LESetExtendedAdvertisingData(handle: handle, data: payload))
            handles.append(handle)
        }
        try await host.send(LESetExtendedAdvertisingEnable(enabling: handles))
        return selected
    }

    /// Extended passive scanning on LE 1M.
    func scanExtended(interval: Double = 10, window: Double = 10, filterDuplicates: ScanDuplicateFilter = .disabled) async throws {
        try await host.send(LESetExtendedScanParameters(le1M: try .init(
            interval: try ScanInterval(milliseconds: interval), window: try ScanInterval(milliseconds: window))))
        try await host.send(LESetExtendedScanEnable(true, filterDuplicates: filterDuplicates))
    }

    func close() async {
        await host.close()
    }
}

/// iBeacon advertising data for tests: UUID 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3.
func iBeaconData(minor: UInt16, major: UInt16 = 1, measuredPower: Int8 = -59) -> [UInt8] {
    let uuid = ProximityUUID(high: 0x89D6_E936_F61F_4227, low: 0xBCD2_6E94_C5A6_B2E3)
    return IBeaconAdvertisement(
        identity: BeaconIdentity(uuid: uuid, major: major, minor: minor), measuredPower: measuredPower
    ).advertisingData
}

func iBeaconIdentity(minor: UInt16, major: UInt16 = 1) -> BeaconIdentity {
    BeaconIdentity(uuid: ProximityUUID(high: 0x89D6_E936_F61F_4227, low: 0xBCD2_6E94_C5A6_B2E3), major: major, minor: minor)
}
