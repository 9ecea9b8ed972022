import BeaconCore

/// What the virtual radio's beacons say of their health: every advertising set that carries
/// an iBeacon also sends an unencrypted Eddystone-TLM frame from the same address, as
/// multi-slot beacons interleave one with the other, with a battery that drains at a steady
/// rate on the air's clock. On an air with virtual time, advancing the clock by days drains
/// it by days without waiting; nothing in it is random, so a run stays reproducible.
///
/// Every `everyEvents`-th advertising event of a set (the first included) sends, after its
/// iBeacon PDUs, the same number of PDUs on the same channels carrying the TLM frame (Core
/// v5.4 Vol 6 Part B 4.4.2.1 lets an event carry a PDU on each used channel; the frame's
/// layout is google/eddystone's eddystone-tlm/tlm-plain.md). The iBeacon's own PDUs are
/// never replaced, so its sightings are what they would be without telemetry.
public struct VirtualBeaconTelemetry: Hashable, Sendable {
    /// The battery's voltage at air time zero.
    public var startVolts: Double
    /// How much it falls per day of air time (86 400 s); the voltage never falls below 1 mV,
    /// as TLM's VBATT 0 would say "not measured".
    public var voltsPerDay: Double
    /// °C, the same for every beacon.
    public var temperature: Double
    /// One advertising event in this many carries the TLM frame too.
    public var everyEvents: Int

    public init(startVolts: Double = 3.0, voltsPerDay: Double = 0.002, temperature: Double = 21.5, everyEvents: Int = 10) {
        self.startVolts = startVolts
        self.voltsPerDay = voltsPerDay
        self.temperature = temperature
        self.everyEvents = everyEvents
    }

    /// A CR2032-like battery at 3.0 V losing 2 mV a day (a year's drain to 2.27 V), 21.5 °C,
    /// TLM in every tenth event.
    public static let standard = VirtualBeaconTelemetry()

    /// The battery's voltage at `time`, in millivolts (1…65 535: what VBATT can say).
    public func millivolts(at time: AirTime) -> UInt16 {
        let days = time.seconds / 86_400
        let volts = startVolts - (voltsPerDay.isFinite ? voltsPerDay : 0) * days
        let millivolts = (volts * 1000).rounded()
        guard millivolts.isFinite else { return 1 }
        return UInt16(min(max(millivolts, 1), Double(UInt16.max)))
    }

    /// Whether the advertising event numbered `event` (from 0) carries the TLM frame.
    func carriesTelemetry(event: Int) -> Bool {
        event % max(1, everyEvents) == 0
    }

    /// Flags, the Eddystone service UUID listed (CSS Part A 1.1), and the TLM frame as
    /// service data of 0xFEAA (CSS Part A 1.11): 25 bytes, within legacy advertising's 31.
    func advertisingData(at time: AirTime, advertisingCount: UInt64) -> [UInt8] {
        let battery = millivolts(at: time)
        // Signed 8.8 fixed point; 0x8000 when the configured temperature is not a number.
        let scaled = (temperature * 256).rounded()
        let rawTemperature = scaled.isFinite ? UInt16(bitPattern: Int16(min(max(scaled, -32_767), 32_767))) : 0x8000
        let count = UInt32(truncatingIfNeeded: advertisingCount)
        let uptime = UInt32(truncatingIfNeeded: time.microseconds / 100_000)
        return [0x02, 0x01, 0x06, 0x03, 0x03, 0xAA, 0xFE, 0x11, 0x16, 0xAA, 0xFE, EddystoneTelemetry.frameType, 0x00]
            + Self.bigEndian(UInt32(battery), bytes: 2) + Self.bigEndian(UInt32(rawTemperature), bytes: 2)
            + Self.bigEndian(count, bytes: 4) + Self.bigEndian(uptime, bytes: 4)
    }

    private static func bigEndian(_ value: UInt32, bytes: Int) -> [UInt8] {
        (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
