import BeaconCore

/// What a KBeacon holds between connections, in the terms of KKM's SDK
/// (kkmhogen/android_kbeaconlib2, KBCfgPackage/*.java): the common parameters (`meaPwr`,
/// the battery, the model's limits) and the advertising slots (`advObj`), of which the
/// iBeacon slot (type 5) carries UUID, major and minor.
public struct KBeaconState: Hashable, Sendable {
    /// One advertising slot (KBCfgAdvBase / KBCfgAdvIBeacon).
    public struct Slot: Hashable, Sendable {
        public var index: Int
        /// 2 Eddystone-UID, 5 iBeacon, … (KBAdvType.java).
        public var type: Int
        public var txPower: Int
        /// Milliseconds (`advPrd`).
        public var interval: Double
        public var uuid: ProximityUUID?
        public var major: UInt16?
        public var minor: UInt16?

        public init(index: Int, type: Int, txPower: Int, interval: Double, uuid: ProximityUUID? = nil, major: UInt16? = nil, minor: UInt16? = nil) {
            self.index = index
            self.type = type
            self.txPower = txPower
            self.interval = interval
            self.uuid = uuid
            self.major = major
            self.minor = minor
        }
    }

    /// KBAdvType.java: the iBeacon slot type.
    public static let iBeaconType = 5
    /// The UUID KBeacons leave the factory with in their iBeacon slot: "www.kkmcn.com"
    /// in ASCII, then 000001; major 1, minor 1 (KKM's documentation and demo apps).
    public static let factoryUUID = ProximityUUID(high: 0x7777_772E_6B6B_6D63, low: 0x6E2E_636F_6D00_0001)
    /// Sixteen ASCII zeros: the factory password (KBeacon.java's default).
    public static let factoryPassword = "0000000000000000"

    public var model = "BC011-virtual"
    public var firmware = "5.31"
    public var batteryPercent: Int
    public var measuredPower: Int
    /// The model's limits (`minPwr`, `maxPwr`, `maxPrd`), which writes are checked against.
    public var minimumTxPower = -40
    public var maximumTxPower = 4
    public var maximumInterval = 20_000.0
    public var slots: [Slot]
    public var password: String

    /// A factory-fresh KBeacon: slot 0 Eddystone-UID, slot 1 the iBeacon with the factory
    /// identity, every 1000 ms at 0 dBm, measured power −59 dBm, the factory password.
    public static func factory(batteryPercent: Int = 100) -> KBeaconState {
        KBeaconState(
            batteryPercent: batteryPercent, measuredPower: -59,
            slots: [
                Slot(index: 0, type: 2, txPower: 0, interval: 1000),
                Slot(index: 1, type: iBeaconType, txPower: 0, interval: 1000, uuid: factoryUUID, major: 1, minor: 1),
            ],
            password: factoryPassword)
    }

    /// The iBeacon slot with a whole identity, if there is one.
    public var iBeaconSlot: Slot? {
        slots.first { $0.type == Self.iBeaconType && $0.uuid != nil && $0.major != nil && $0.minor != nil }
    }

    /// The identity the iBeacon slot advertises.
    public var identity: BeaconIdentity? {
        guard let slot = iBeaconSlot, let uuid = slot.uuid, let major = slot.major, let minor = slot.minor else { return nil }
        return BeaconIdentity(uuid: uuid, major: major, minor: minor)
    }
}
