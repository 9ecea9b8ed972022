/// The telemetry frame an advertisement carries, if any: an Eddystone-TLM frame
/// (`EddystoneTelemetry`) or a KKM system or sensor frame (`KKMTelemetry`), found among its
/// AD structures as service data of the Eddystone UUID 0xFEAA (CSS Part A 1.11, the UUID
/// least significant byte first) or as KKM's manufacturer data (CSS Part A 1.4).
public enum AdvertisedTelemetry: Hashable, Sendable {
    case eddystone(EddystoneTelemetry)
    case kkm(KKMTelemetry)

    /// Service Data, 16-bit UUID (CSS Part A 1.11).
    public static let serviceData16Type: UInt8 = 0x16

    /// The first telemetry frame among `structures`; `nil` when none is one.
    public init?(structures: [ADStructure]) {
        for structure in structures {
            if let found = Self(structure: structure) {
                self = found
                return
            }
        }
        return nil
    }

    /// The first telemetry frame in advertising data (or a scan response); `nil` when there
    /// is none or the data does not split into AD structures.
    public init?(advertisingData: some Collection<UInt8>) {
        guard case .success(let structures) = AdvertisingData.parse(advertisingData) else { return nil }
        self.init(structures: structures)
    }

    /// The frame one AD structure holds, if it holds one.
    public init?(structure: ADStructure) {
        let data = structure.data
        guard data.count >= 3 else { return nil }
        let identifier = UInt16(data[0]) | UInt16(data[1]) << 8
        let frame = data.dropFirst(2)
        switch structure.type {
        case Self.serviceData16Type where identifier == EddystoneTelemetry.serviceUUID:
            if let telemetry = EddystoneTelemetry(frame: frame) {
                self = .eddystone(telemetry)
            } else if let telemetry = KKMTelemetry(frame: frame) {
                self = .kkm(telemetry)
            } else {
                return nil
            }
        case ADStructure.manufacturerSpecificType where identifier == KKMTelemetry.companyIdentifier:
            guard let telemetry = KKMTelemetry(frame: frame) else { return nil }
            self = .kkm(telemetry)
        default:
            return nil
        }
    }

    /// What the frame measured, as a reading from `address` heard at `time` on `clock` by
    /// `receiver`; `nil` when it measured nothing (an encrypted or malformed frame, or a TLM
    /// frame that says it measures neither battery nor temperature).
    public func reading(
        address: BluetoothAddress, addressIsRandom: Bool, time: Double, clock: SightingClock, receiver: String
    ) -> TelemetryReading? {
        let millivolts: UInt16?
        var percent: UInt8?
        let temperature: Double?
        let source: TelemetrySource
        switch self {
        case .eddystone(.plain(let frame)):
            (millivolts, temperature, source) = (frame.batteryMillivolts, frame.temperature, .eddystoneTLM)
        case .kkm(.system(let frame)):
            (millivolts, temperature, source) = (nil, nil, .kkm)
            percent = frame.batteryPercent
        case .kkm(.sensor(let frame)):
            (millivolts, temperature, source) = (frame.batteryMillivolts, frame.temperature, .kkm)
        case .eddystone(.encrypted), .eddystone(.malformed), .kkm(.malformed):
            return nil
        }
        guard millivolts != nil || percent != nil || temperature != nil else { return nil }
        return TelemetryReading(
            address: address, addressIsRandom: addressIsRandom, batteryMillivolts: millivolts, batteryPercent: percent,
            temperature: temperature, time: time, clock: clock, receiver: receiver, source: source)
    }

    /// Why the frame cannot be read, when it is malformed.
    public var problem: String? {
        switch self {
        case .eddystone(.malformed(let reason)), .kkm(.malformed(let reason)): reason
        default: nil
        }
    }

    /// An encrypted Eddystone-TLM frame: readable only with the beacon's key.
    public var isEncrypted: Bool { self == .eddystone(.encrypted) }
}
