import BeaconCore
import HCI

/// One beacon as the controller accepted it: what actually goes out on the air.
public struct AcceptedBeacon: Hashable, Sendable {
    public var request: AdvertisingRequest
    /// The advertising interval the controller was given (legacy advertising gives every
    /// beacon of a controller the same one).
    public var interval: AdvertisingInterval
    /// The power the controller advertises this beacon with, dBm: the selected TX power of
    /// its advertising set (extended), or the advertising channel power it reports (legacy).
    public var txPower: Int8
    /// The measured power written into the frame.
    public var measuredPower: Int8
    /// The address the beacon advertises from.
    public var address: BluetoothAddress
    public var addressType: OwnAddressType
    /// The advertising set (extended family); `nil` for legacy advertising.
    public var handle: AdvertisingHandle?

    public init(
        request: AdvertisingRequest, interval: AdvertisingInterval, txPower: Int8, measuredPower: Int8,
        address: BluetoothAddress, addressType: OwnAddressType, handle: AdvertisingHandle?
    ) {
        self.request = request
        self.interval = interval
        self.txPower = txPower
        self.measuredPower = measuredPower
        self.address = address
        self.addressType = addressType
        self.handle = handle
    }

    public var beaconID: String? { request.beaconID }
    public var identity: BeaconIdentity { request.identity }
    /// Whether `measuredPower` was estimated from `txPower` rather than given.
    public var measuredPowerIsEstimated: Bool { request.measuredPower == .auto }

    /// The 30 bytes on the air.
    public var advertisement: IBeaconAdvertisement {
        IBeaconAdvertisement(identity: request.identity, measuredPower: measuredPower)
    }
}

/// What one bring-up put on the air.
public struct AdvertisingSession: Hashable, Sendable {
    public var controller: ControllerInfo
    public var family: AdvertisingFamily
    public var beacons: [AcceptedBeacon]
    /// Legacy advertising of several beacons: how long each keeps the air before the next.
    /// `nil` when every beacon advertises continuously.
    public var rotationSlot: Duration?
    /// How many bring-ups preceded this one in the same run (0 for the first).
    public var restartCount: Int

    public init(
        controller: ControllerInfo, family: AdvertisingFamily, beacons: [AcceptedBeacon],
        rotationSlot: Duration?, restartCount: Int = 0
    ) {
        self.controller = controller
        self.family = family
        self.beacons = beacons
        self.rotationSlot = rotationSlot
        self.restartCount = restartCount
    }

    /// How often one beacon's frame goes out: its interval, or, in a rotation, the slot
    /// times the number of beacons sharing the controller.
    public var effectiveInterval: Duration? {
        guard let rotationSlot else { return nil }
        return rotationSlot * beacons.count
    }
}
