import BeaconCore
import HCI
import LECentral
import VirtualRadio

/// A KKM KBeacon on the virtual radio: it advertises its iBeacon slot connectably and,
/// behind it, serves KKM's configuration service 0xFEA0 over GATT (``KBeaconFirmware``
/// plays the protocol), so that `beaconctl provision --hardware` can be tried without a
/// beacon. What a central writes shows in its advertising once the central has gone.
public struct VirtualKBeacon: VirtualPeripheral {
    public struct Configuration: Hashable, Sendable {
        public var address: BluetoothAddress
        public var state: KBeaconState
        /// Failed authentication attempts before the beacon refuses every authentication.
        public var attemptsBeforeLockOut: Int
        /// The largest ATT_MTU the beacon accepts.
        public var maximumMTU: Int

        public init(
            address: BluetoothAddress, state: KBeaconState = .factory(), attemptsBeforeLockOut: Int = 3, maximumMTU: Int = 247
        ) {
            self.address = address
            self.state = state
            self.attemptsBeforeLockOut = attemptsBeforeLockOut
            self.maximumMTU = maximumMTU
        }
    }

    /// KBUtility.java: the configuration service and its two characteristics.
    static let service = AttributeUUID(0xFEA0)
    static let writeCharacteristic = AttributeUUID(0xFEA1)
    static let notifyCharacteristic = AttributeUUID(0xFEA2)

    public let configuration: Configuration
    private var firmware: KBeaconFirmware
    /// Where the central's writes land, among the table's value handles.
    private let writeHandle: UInt16?
    private var link: AttributeLink

    public init(_ configuration: Configuration) {
        self.configuration = configuration
        firmware = KBeaconFirmware(
            state: configuration.state, address: configuration.address, attemptsBeforeLockOut: configuration.attemptsBeforeLockOut,
            seed: configuration.address.value)
        let table = AttributeTable([
            // Generic Access (Core v5.4 Vol 3 Part C 12): the device name.
            .init(uuid: AttributeUUID(0x1800), characteristics: [
                .init(uuid: AttributeUUID(0x2A00), properties: .read, value: Array("KBeacon-virtual".utf8))
            ]),
            .init(uuid: Self.service, characteristics: [
                .init(uuid: Self.writeCharacteristic, properties: [.write, .writeWithoutResponse]),
                .init(uuid: Self.notifyCharacteristic, properties: .notify),
            ]),
        ])
        writeHandle = table.valueHandles[Self.writeCharacteristic]
        link = AttributeLink(table: table, maximumMTU: configuration.maximumMTU)
    }

    // MARK: What a test or a scenario reads

    /// What the beacon holds now (identity, measured power, password, battery).
    public var state: KBeaconState { firmware.state }
    /// Whether failed attempts locked it (``KBeaconFirmware`` says what counts as one).
    public var isLockedOut: Bool { firmware.lockedOut }
    public var failedAttempts: Int { firmware.failedAttempts }
    /// Whether a central is connected.
    public var isConnected: Bool { link.handle != nil }

    // MARK: VirtualPeripheral

    /// The iBeacon slot's frame (Apple's layout: UUID, major, minor, the common `meaPwr`)
    /// at its interval and TX power, each event followed by KKM's own frame (``kkmFrame``),
    /// as from a second slot: what lets `--profile auto` recognise it from a passive scan.
    /// Without an iBeacon slot, KKM's frame alone, every second.
    public var advertising: VirtualPeripheralAdvertising? {
        let state = firmware.state
        let kkm = Self.kkmFrame(batteryPercent: state.batteryPercent)
        if let identity = state.identity, let slot = state.iBeaconSlot,
            let interval = try? AdvertisingInterval(milliseconds: slot.interval)
        {
            let frame = IBeaconAdvertisement(identity: identity, measuredPower: Int8(clamping: state.measuredPower))
            return VirtualPeripheralAdvertising(
                data: frame.advertisingData, secondData: kkm, interval: interval, txPower: Int8(clamping: slot.txPower))
        }
        guard let interval = try? AdvertisingInterval(milliseconds: 1000) else { return nil }
        return VirtualPeripheralAdvertising(data: kkm, interval: interval)
    }

    /// Flags, then the 0x2080 service data KBeacons carry their battery percent in, and
    /// KKM's manufacturer id 0x0A53 (KBUtility.java `KKM_MANUFACTURE_ID`,
    /// KBAdvPacketHandler.java `PARCE_UUID_EXT_DATA`), as the vendor's SDK recognises them.
    static func kkmFrame(batteryPercent: Int) -> [UInt8] {
        let battery = UInt8(clamping: batteryPercent)
        return [0x02, 0x01, 0x06, 0x06, 0x16, 0x80, 0x20, battery, 0x00, 0x00, 0x05, 0xFF, 0x53, 0x0A, 0x22, 0x00]
    }

    public mutating func connected(handle: UInt16, central: BluetoothAddress, at time: AirTime) {
        link.connected(handle: handle)
        firmware.startSession()
    }

    public mutating func received(_ fragment: ACLDataPacket, at time: AirTime) -> VirtualPeripheralReply {
        guard let pdu = link.attributePDU(in: fragment) else { return .none }
        var pdus: [[UInt8]] = []
        let answer = link.server.receive(pdu)
        if let response = answer.response { pdus.append(response) }
        if let written = answer.written, written.handle == writeHandle {
            let mtu = link.server.mtu
            let notifications = firmware.write(written.value, frameLength: mtu - 3, mtu: mtu)
            if link.server.notifies(Self.notifyCharacteristic) {
                pdus += notifications.compactMap { link.server.notification(Self.notifyCharacteristic, $0) }
            }
        }
        return link.reply(pdus)
    }

    public mutating func disconnected(handle: UInt16, reason: HCIStatus, at time: AirTime) {
        link.disconnected()
        firmware.startSession()
    }
}
