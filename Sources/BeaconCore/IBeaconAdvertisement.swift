/// An iBeacon advertisement: identity plus measured power.
///
/// Layout (Apple "Proximity Beacon Specification" r1, section 2.1; Core Spec Supplement
/// Part A 1.4 for the manufacturer-specific AD type):
/// ```
/// 02 01 06                 Flags AD: LE General Discoverable, BR/EDR not supported
/// 1A FF 4C 00 02 15        length 26, type 0xFF, company 0x004C (Apple, little-endian), type 0x02, length 0x15
/// UUID[16] major[2] minor[2] measured-power[1]   (UUID/major/minor big-endian)
/// ```
public struct IBeaconAdvertisement: Hashable, Sendable {
    public var identity: BeaconIdentity
    /// RSSI in dBm expected at 1 m from the beacon, as a signed byte.
    public var measuredPower: Int8

    public init(identity: BeaconIdentity, measuredPower: Int8) {
        self.identity = identity
        self.measuredPower = measuredPower
    }

    /// Apple's Bluetooth SIG company identifier.
    public static let appleCompanyID: UInt16 = 0x004C
    /// iBeacon subtype and its length inside Apple's manufacturer data.
    public static let iBeaconType: UInt8 = 0x02
    public static let iBeaconLength: UInt8 = 0x15

    /// The 23 bytes after `4C 00`: type, length, UUID, major, minor, power.
    public var manufacturerPayload: [UInt8] {
        var bytes: [UInt8] = [Self.iBeaconType, Self.iBeaconLength]
        bytes.reserveCapacity(23)
        bytes += identity.uuid.bytes
        bytes += [UInt8(identity.major >> 8), UInt8(identity.major & 0xFF)]
        bytes += [UInt8(identity.minor >> 8), UInt8(identity.minor & 0xFF)]
        bytes.append(UInt8(bitPattern: measuredPower))
        return bytes
    }

    /// The 30-byte advertising data: flags AD followed by the manufacturer-specific AD.
    public var advertisingData: [UInt8] {
        [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00] + manufacturerPayload
    }

    /// Decodes an iBeacon from the data of one manufacturer-specific AD structure (the bytes
    /// after the AD type 0xFF: company id little-endian, then the payload). `nil` when it is
    /// not an iBeacon or has the wrong length.
    public init?<Bytes: Collection<UInt8>>(manufacturerData: Bytes) {
        let bytes = Array(manufacturerData)
        guard bytes.count == 25,
              bytes[0] == 0x4C, bytes[1] == 0x00,
              bytes[2] == Self.iBeaconType, bytes[3] == Self.iBeaconLength,
              let uuid = ProximityUUID(bytes: bytes[4..<20])
        else { return nil }
        let major = UInt16(bytes[20]) << 8 | UInt16(bytes[21])
        let minor = UInt16(bytes[22]) << 8 | UInt16(bytes[23])
        self.init(identity: BeaconIdentity(uuid: uuid, major: major, minor: minor),
                  measuredPower: Int8(bitPattern: bytes[24]))
    }
}
