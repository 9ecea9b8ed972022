/// Eddystone-TLM: the telemetry frame an Eddystone beacon interleaves with its identifying
/// frames (and many iBeacons with theirs), carried as service data of the Eddystone service
/// UUID 0xFEAA. Layout from google/eddystone, `eddystone-tlm/tlm-plain.md` (unencrypted,
/// version 0x00) and `eddystone-tlm/tlm-encrypted.md` (version 0x01); every field big-endian.
///
/// ```
/// 0     frame type 0x20
/// 1     version: 0x00 plain, 0x01 encrypted
/// 2-3   VBATT   battery voltage, 1 mV a bit; 0 when the beacon has no battery to measure
/// 4-5   TEMP    temperature, °C in signed 8.8 fixed point; 0x8000 when not measured
/// 6-9   ADV_CNT advertising PDUs sent since power-up or reboot
/// 10-13 SEC_CNT time since power-up or reboot, 0.1 s a bit
/// ```
/// Anything from the air is read with checks: a frame of another length, or of a version
/// the document does not define, is `malformed` with the reason, never read past its end.
public enum EddystoneTelemetry: Hashable, Sendable {
    /// An unencrypted frame, read.
    case plain(Reading)
    /// An encrypted frame (ETLM): readable only with the beacon's identity key.
    case encrypted
    /// A TLM frame that is not one of the two layouts, and why.
    case malformed(String)

    /// What an unencrypted frame says.
    public struct Reading: Hashable, Sendable {
        /// `nil` when the beacon says it does not measure it (VBATT 0).
        public var batteryMillivolts: UInt16?
        /// °C; `nil` when the beacon says it does not measure it (0x8000).
        public var temperature: Double?
        public var advertisingCount: UInt32
        /// Tenths of a second since power-up or reboot.
        public var uptimeTenths: UInt32

        public init(batteryMillivolts: UInt16?, temperature: Double?, advertisingCount: UInt32, uptimeTenths: UInt32) {
            self.batteryMillivolts = batteryMillivolts
            self.temperature = temperature
            self.advertisingCount = advertisingCount
            self.uptimeTenths = uptimeTenths
        }

        /// Volts, when the battery is measured.
        public var batteryVolts: Double? { batteryMillivolts.map { Double($0) / 1000 } }
        /// Seconds since power-up or reboot.
        public var uptimeSeconds: Double { Double(uptimeTenths) / 10 }
    }

    /// The Eddystone service's 16-bit UUID (sent least significant byte first: AA FE).
    public static let serviceUUID: UInt16 = 0xFEAA
    public static let frameType: UInt8 = 0x20
    static let plainLength = 14
    static let encryptedLength = 18

    /// The frame in an Eddystone service data block (the bytes after its UUID); `nil` when
    /// it is another Eddystone frame (UID, URL, EID) or empty.
    public init?(frame: some Collection<UInt8>) {
        let bytes = Array(frame)
        guard bytes.first == Self.frameType else { return nil }
        guard bytes.count >= 2 else {
            self = .malformed("a TLM frame of 1 byte: no version")
            return
        }
        switch bytes[1] {
        case 0x00:
            guard bytes.count == Self.plainLength else {
                self = .malformed("an unencrypted TLM frame of \(bytes.count) bytes, where the frame has \(Self.plainLength)")
                return
            }
            let battery = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
            let rawTemperature = UInt16(bytes[4]) << 8 | UInt16(bytes[5])
            self = .plain(Reading(
                batteryMillivolts: battery == 0 ? nil : battery,
                // Signed 8.8 fixed point: the two bytes as a signed integer, in 256ths of a degree.
                temperature: rawTemperature == 0x8000 ? nil : Double(Int16(bitPattern: rawTemperature)) / 256,
                advertisingCount: Self.bigEndian32(bytes, at: 6), uptimeTenths: Self.bigEndian32(bytes, at: 10)))
        case 0x01:
            guard bytes.count == Self.encryptedLength else {
                self = .malformed("an encrypted TLM frame of \(bytes.count) bytes, where the frame has \(Self.encryptedLength)")
                return
            }
            self = .encrypted
        default:
            self = .malformed("TLM version \(bytes[1]), which the Eddystone-TLM documents do not define (0 plain, 1 encrypted)")
        }
    }

    /// The first Eddystone-TLM frame in advertising data (or a scan response), if any.
    public init?(advertisingData: [UInt8]) {
        guard case .success(let structures) = AdvertisingData.parse(advertisingData) else { return nil }
        for structure in structures where structure.type == 0x16 && structure.data.count >= 2 {
            // Service data, 16-bit UUID (CSS Part A 1.11), the UUID least significant byte first.
            guard UInt16(structure.data[0]) | UInt16(structure.data[1]) << 8 == Self.serviceUUID,
                  let telemetry = Self(frame: structure.data.dropFirst(2)) else { continue }
            self = telemetry
            return
        }
        return nil
    }

    private static func bigEndian32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (offset..<offset + 4).reduce(0) { $0 << 8 | UInt32(bytes[$1]) }
    }
}
