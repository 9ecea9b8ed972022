import BeaconCore
import HCI
import LECentral
import VirtualRadio

/// A beacon with the Eddystone Configuration GATT Service on the virtual radio
/// (``EddystoneFirmware`` plays the service from google/eddystone
/// `configuration-service/README.md`), beside the Battery Service (Battery Level 0x2A19), so
/// that `beaconctl provision --hardware --profile eddystone-gatt` can be tried without a
/// beacon. It advertises Eddystone frames, never an iBeacon: the service has no iBeacon frame.
public struct VirtualEddystoneBeacon: VirtualPeripheral {
    public struct Configuration: Hashable, Sendable {
        public var address: BluetoothAddress
        public var state: EddystoneBeaconState
        /// Wrong unlock tokens before the beacon refuses every token.
        public var attemptsBeforeLockOut: Int
        /// The largest ATT_MTU the beacon accepts.
        public var maximumMTU: Int
        /// The challenges' generator (deterministic: the same seed, the same challenges).
        public var seed: UInt64

        /// `state` defaults to a factory-fresh beacon whose UID instance is the address.
        public init(
            address: BluetoothAddress, state: EddystoneBeaconState? = nil, attemptsBeforeLockOut: Int = 3, maximumMTU: Int = 247,
            seed: UInt64? = nil
        ) {
            self.address = address
            self.state = state ?? .factory(instance: address.value)
            self.attemptsBeforeLockOut = attemptsBeforeLockOut
            self.maximumMTU = maximumMTU
            self.seed = seed ?? address.value
        }
    }

    /// The Battery Service and its level (Bluetooth SIG assigned numbers).
    static let batteryService = AttributeUUID(0x180F)
    static let batteryLevel = AttributeUUID(0x2A19)

    public let configuration: Configuration
    private var firmware: EddystoneFirmware
    private let characteristics: [UInt16: EddystoneFirmware.Characteristic]
    private var link: AttributeLink

    public init(_ configuration: Configuration) {
        self.configuration = configuration
        firmware = EddystoneFirmware(
            state: configuration.state, factoryState: .factory(instance: configuration.address.value, batteryPercent: configuration.state.batteryPercent),
            attemptsBeforeLockOut: configuration.attemptsBeforeLockOut, seed: configuration.seed)
        let table = AttributeTable([
            // Generic Access (Core v5.4 Vol 3 Part C 12): the device name.
            .init(uuid: AttributeUUID(0x1800), characteristics: [
                .init(uuid: AttributeUUID(0x2A00), properties: .read, value: Array("Eddystone-virtual".utf8))
            ]),
            .init(uuid: Self.batteryService, characteristics: [
                .init(uuid: Self.batteryLevel, properties: .read, value: [UInt8(min(max(configuration.state.batteryPercent, 0), 100))])
            ]),
            .init(uuid: EddystoneFirmware.service, characteristics: EddystoneFirmware.Characteristic.allCases.map {
                .init(uuid: $0.uuid, properties: $0.properties)
            }),
        ])
        var characteristics: [UInt16: EddystoneFirmware.Characteristic] = [:]
        for characteristic in EddystoneFirmware.Characteristic.allCases {
            if let handle = table.valueHandles[characteristic.uuid] { characteristics[handle] = characteristic }
        }
        self.characteristics = characteristics
        link = AttributeLink(table: table, maximumMTU: configuration.maximumMTU)
    }

    // MARK: What a test or a scenario reads

    /// What the beacon holds now (slots, lock code, battery).
    public var state: EddystoneBeaconState { firmware.state }
    /// 0x00 locked, 0x01 unlocked, 0x02 unlocked with the automatic relock disabled.
    public var lockState: UInt8 { firmware.lockState.rawValue }
    /// Whether wrong tokens locked it out (every token refused from then on).
    public var isLockedOut: Bool { firmware.lockedOut }
    public var failedAttempts: Int { firmware.failedAttempts }
    /// How many unlock challenges a central read: none means nobody touched the lock.
    public var challengesIssued: Int { firmware.challengesIssued }
    /// How many factory resets it performed.
    public var factoryResets: Int { firmware.factoryResets }
    public var isConnected: Bool { link.handle != nil }

    // MARK: VirtualPeripheral

    /// The first slot that broadcasts, at its interval and radio power, each event followed
    /// by a frame listing the configuration service's 128-bit UUID (what the document has a
    /// connectable beacon show, and what lets `--profile auto` recognise it from a passive
    /// scan; the virtual radio has no scan response). The virtual radio carries two frames
    /// a beacon, so further slots are not on the air. With every slot empty, the service's
    /// frame alone, every second.
    public var advertising: VirtualPeripheralAdvertising? {
        let state = firmware.state
        let service = Self.serviceFrame
        if let index = state.slots.indices.first(where: { state.slots[$0].frame != nil }),
            let interval = try? AdvertisingInterval(milliseconds: Double(state.slots[index].interval))
        {
            return VirtualPeripheralAdvertising(
                data: Self.eddystoneFrame(state.broadcastFrame(slot: index)), secondData: service, interval: interval,
                txPower: Int8(clamping: state.slots[index].radioTxPower))
        }
        guard let interval = try? AdvertisingInterval(milliseconds: 1000) else { return nil }
        return VirtualPeripheralAdvertising(data: service, interval: interval)
    }

    /// Flags, the complete list of 16-bit service UUIDs (0xFEAA) and the frame as 0xFEAA
    /// service data (google/eddystone `protocol-specification.md`): 31 bytes for a UID frame.
    static func eddystoneFrame(_ frame: [UInt8]) -> [UInt8] {
        [0x02, 0x01, 0x06, 0x03, 0x03, 0xAA, 0xFE, UInt8(3 + frame.count), 0x16, 0xAA, 0xFE] + frame
    }

    /// Flags and the complete list of 128-bit service UUIDs: the configuration service.
    static let serviceFrame: [UInt8] = [0x02, 0x01, 0x06, 0x11, 0x07] + EddystoneFirmware.service.littleEndian

    public mutating func connected(handle: UInt16, central: BluetoothAddress, at time: AirTime) {
        link.connected(handle: handle)
        firmware.startSession()
    }

    public mutating func received(_ fragment: ACLDataPacket, at time: AirTime) -> VirtualPeripheralReply {
        guard let pdu = link.attributePDU(in: fragment) else { return .none }
        var values = FirmwareValues(firmware: firmware, characteristics: characteristics)
        let answer = link.server.receive(pdu, values: &values)
        firmware = values.firmware
        guard let response = answer.response else { return .none }
        return link.reply([response])
    }

    public mutating func disconnected(handle: UInt16, reason: HCIStatus, at time: AirTime) {
        link.disconnected()
        firmware.startSession()
    }
}

/// The configuration service's characteristics answered by the firmware; every other
/// attribute from the table.
private struct FirmwareValues: CharacteristicValues {
    var firmware: EddystoneFirmware
    let characteristics: [UInt16: EddystoneFirmware.Characteristic]

    mutating func read(_ handle: UInt16) -> AttributeRead? {
        guard let characteristic = characteristics[handle] else { return nil }
        return firmware.read(characteristic)
    }

    mutating func write(_ handle: UInt16, _ value: [UInt8]) -> ATTErrorCode? {
        guard let characteristic = characteristics[handle] else { return nil }
        return firmware.write(characteristic, value)
    }
}
