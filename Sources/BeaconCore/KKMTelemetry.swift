/// KKM's (Blue Charm's) telemetry frames, as the vendor's open-source KBeacon SDK reads them
/// (kkmhogen/android_kbeaconlib2, MIT: `KBAdvPackage/KBAdvPacketHandler.java`,
/// `KBAdvPacketSystem.java`, `KBAdvPacketSensor.java`, `KBUtility.java`). A frame travels
/// either as service data of the Eddystone UUID 0xFEAA or as manufacturer data of KKM's
/// company identifier 0x0A53, its first byte saying which frame it is; every field is
/// big-endian.
///
/// System frame (0x22, at least 11 bytes):
/// ```
/// 0     0x22
/// 1     model
/// 2     battery level, percent
/// 3-8   the beacon's MAC address
/// 9-10  firmware version, major then minor
/// ```
/// Sensor frame (0x21, at least 3 bytes): a 16-bit mask of the sensors present, then each
/// present sensor's value in mask-bit order: bit 0 battery (2 bytes, mV), bit 1 temperature
/// (2 bytes, °C in signed 8.8), bit 2 humidity (2 bytes, signed 8.8; a negative humidity
/// extends the temperature's range by (−1 − humidity) × 100 °C and is no humidity), then
/// further sensors this reader does not need.
///
/// A frame shorter than its layout, or a value it cannot hold (a level above 100 %), is
/// `malformed` with the reason, never read past its end.
public enum KKMTelemetry: Hashable, Sendable {
    case system(System)
    case sensor(Sensor)
    case malformed(String)

    /// What a system frame says.
    public struct System: Hashable, Sendable {
        public var model: UInt8
        public var batteryPercent: UInt8
        /// `major.minor`.
        public var firmware: String

        public init(model: UInt8, batteryPercent: UInt8, firmware: String) {
            self.model = model
            self.batteryPercent = batteryPercent
            self.firmware = firmware
        }
    }

    /// What a sensor frame says of the beacon's health (its other sensors are left out).
    public struct Sensor: Hashable, Sendable {
        public var batteryMillivolts: UInt16?
        /// °C.
        public var temperature: Double?

        public init(batteryMillivolts: UInt16?, temperature: Double?) {
            self.batteryMillivolts = batteryMillivolts
            self.temperature = temperature
        }
    }

    /// KKM's Bluetooth SIG company identifier (sent least significant byte first: 53 0A).
    public static let companyIdentifier: UInt16 = 0x0A53
    public static let systemFrameType: UInt8 = 0x22
    public static let sensorFrameType: UInt8 = 0x21
    static let systemLength = 11
    static let sensorHeaderLength = 3

    /// Sensor-mask bits (`KBAdvPacketSensor.java`).
    private static let batteryBit: UInt16 = 0x0001
    private static let temperatureBit: UInt16 = 0x0002
    private static let humidityBit: UInt16 = 0x0004

    /// The frame in an Eddystone service data block or KKM manufacturer data (the bytes
    /// after the UUID or company identifier); `nil` when it is neither a system nor a
    /// sensor frame.
    public init?(frame: some Collection<UInt8>) {
        let bytes = Array(frame)
        switch bytes.first {
        case Self.systemFrameType:
            guard bytes.count >= Self.systemLength else {
                self = .malformed("a KKM system frame of \(bytes.count) bytes, where the frame has at least \(Self.systemLength)")
                return
            }
            guard bytes[2] <= 100 else {
                self = .malformed("a KKM system frame with a battery level of \(bytes[2]) %, above 100")
                return
            }
            self = .system(System(model: bytes[1], batteryPercent: bytes[2], firmware: "\(bytes[9]).\(bytes[10])"))
        case Self.sensorFrameType:
            self = Self.sensor(bytes)
        default:
            return nil
        }
    }

    private static func sensor(_ bytes: [UInt8]) -> KKMTelemetry {
        guard bytes.count >= sensorHeaderLength else {
            return .malformed("a KKM sensor frame of \(bytes.count) bytes, where the frame has at least \(sensorHeaderLength)")
        }
        let mask = UInt16(bytes[1]) << 8 | UInt16(bytes[2])
        var offset = sensorHeaderLength
        // Each present value in mask-bit order; `nil` when the frame ends before it.
        func next(_ bit: UInt16) -> UInt16?? {
            guard mask & bit != 0 else { return .some(nil) }
            guard bytes.count - offset >= 2 else { return nil }
            defer { offset += 2 }
            return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
        }
        func truncated(_ what: String) -> KKMTelemetry {
            .malformed("a KKM sensor frame of \(bytes.count) bytes that ends before its \(what) (byte \(offset))")
        }
        guard let battery = next(batteryBit) else { return truncated("battery voltage") }
        guard let rawTemperature = next(temperatureBit) else { return truncated("temperature") }
        guard let rawHumidity = next(humidityBit) else { return truncated("humidity") }
        var temperature = rawTemperature.map(signed88)
        if let humidity = rawHumidity.map(signed88), humidity < 0, let measured = temperature {
            temperature = (-1 - humidity) * 100 + measured
        }
        return .sensor(Sensor(batteryMillivolts: battery, temperature: temperature))
    }

    /// Signed 8.8 fixed point: the two bytes as a signed integer, in 256ths.
    private static func signed88(_ raw: UInt16) -> Double {
        Double(Int16(bitPattern: raw)) / 256
    }
}
