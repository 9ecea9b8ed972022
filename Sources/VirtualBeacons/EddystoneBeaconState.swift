import BeaconCore

/// What a beacon with the Eddystone Configuration GATT Service holds between connections, in
/// the terms of google/eddystone `configuration-service/README.md`: its advertising slots
/// (each a frame, an interval and the radio and advertised Tx powers) and its lock code.
///
/// The simulated model: three slots, each with its own interval and power
/// (`IS_VARIABLE_ADV_SUPPORTED` and `IS_VARIABLE_TX_POWER_SUPPORTED`), UID, URL and TLM frames
/// (no EID: it would need an ECDH key pair the simulation does not have).
public struct EddystoneBeaconState: Hashable, Sendable {
    /// A slot's frame, as the slot data characteristic (10) writes it: the frame type and the
    /// identifying bytes, not the Tx power (google/eddystone `eddystone-uid`, `eddystone-url`,
    /// `eddystone-tlm`).
    public enum Frame: Hashable, Sendable {
        /// 10 bytes of namespace, 6 of instance.
        case uid(namespace: [UInt8], instance: [UInt8])
        /// The URL scheme prefix (0x00…0x03) and the encoded rest, at most 17 bytes.
        case url(scheme: UInt8, encoded: [UInt8])
        /// Telemetry: battery voltage, temperature, counts.
        case tlm
    }

    /// One advertising slot.
    public struct Slot: Hashable, Sendable {
        /// `nil`: the slot is empty and sends nothing.
        public var frame: Frame?
        /// Milliseconds.
        public var interval: Int
        /// dBm, one of ``EddystoneBeaconState/supportedTxPowers``.
        public var radioTxPower: Int
        /// The power at 0 m the frames advertise, when set (characteristic 5); else the
        /// radio's power, as the document says.
        public var advertisedTxPower: Int?

        public init(frame: Frame?, interval: Int, radioTxPower: Int, advertisedTxPower: Int? = nil) {
            self.frame = frame
            self.interval = interval
            self.radioTxPower = radioTxPower
            self.advertisedTxPower = advertisedTxPower
        }

        /// The Tx power the frames carry.
        public var advertisedPower: Int { advertisedTxPower ?? radioTxPower }
    }

    /// How many slots the simulated beacon broadcasts at most.
    public static let slotCount = 3
    /// The radio powers it supports, lowest first (the Capabilities characteristic's table).
    public static let supportedTxPowers = [-20, -16, -12, -8, -4, 0, 4]
    /// The advertising intervals it takes, in ms: legacy advertising's 10.24 s at most (Core
    /// v5.4 Vol 6 Part B 4.4.2.2) and 100 ms at least, the document's shortest; a value
    /// outside is clamped, as the document asks.
    public static let intervals = 100...10_240
    /// The lock code the simulated beacons leave the factory with: sixteen zero bytes, the
    /// default many vendors ship (the document leaves it to the vendor).
    public static let factoryLockCode = [UInt8](repeating: 0, count: 16)
    /// The UID namespace of the factory frame: the first ten bytes of SHA-1 are what the
    /// document suggests for a domain; these are simply the ASCII of "beaconctl" and a zero,
    /// a namespace of the simulation's own.
    public static let factoryNamespace: [UInt8] = Array("beaconctl".utf8) + [0x00]

    public var slots: [Slot]
    public var lockCode: [UInt8]
    /// 0…100 %, reported by the Battery Service and, as a voltage, by TLM frames.
    public var batteryPercent: Int

    public init(slots: [Slot], lockCode: [UInt8], batteryPercent: Int) {
        self.slots = slots
        self.lockCode = lockCode
        self.batteryPercent = batteryPercent
    }

    /// A factory-fresh beacon: slot 0 an Eddystone-UID frame (the simulation's namespace, the
    /// instance the last six bytes of `instance`), slot 1 TLM, slot 2 empty; every 1000 ms
    /// at 0 dBm; the factory lock code.
    public static func factory(instance: UInt64 = 0, batteryPercent: Int = 100) -> EddystoneBeaconState {
        let instanceBytes = (0..<6).map { UInt8(truncatingIfNeeded: instance >> (8 * (5 - $0))) }
        return EddystoneBeaconState(
            slots: [
                Slot(frame: .uid(namespace: factoryNamespace, instance: instanceBytes), interval: 1000, radioTxPower: 0),
                Slot(frame: .tlm, interval: 1000, radioTxPower: 0),
                Slot(frame: nil, interval: 1000, radioTxPower: 0),
            ],
            lockCode: factoryLockCode, batteryPercent: min(max(batteryPercent, 0), 100))
    }

    /// The battery voltage TLM frames report: the simulation's own linear rule, 2.0 V empty
    /// to 3.0 V full (a lithium coin cell's working range), in mV.
    public var batteryMillivolts: UInt16 {
        UInt16(2000 + 10 * min(max(batteryPercent, 0), 100))
    }

    /// What slot `index` broadcasts, as the slot data characteristic reads it and as the
    /// Eddystone service data (UUID 0xFEAA) carries it: the frame type, then per frame
    /// (google/eddystone `protocol-specification.md` and the frames' documents):
    /// UID Tx power, namespace, instance, two RFU zero bytes; URL Tx power, scheme, encoded
    /// URL; TLM version 0, VBATT (mV), TEMP 0x8000 (not measured), ADV_CNT and SEC_CNT 0 (the
    /// simulation counts neither). Empty for an empty slot.
    public func broadcastFrame(slot index: Int) -> [UInt8] {
        guard slots.indices.contains(index), let frame = slots[index].frame else { return [] }
        let power = UInt8(bitPattern: Int8(clamping: slots[index].advertisedPower))
        switch frame {
        case .uid(let namespace, let instance):
            return [0x00, power] + namespace + instance + [0x00, 0x00]
        case .url(let scheme, let encoded):
            return [0x10, power, scheme] + encoded
        case .tlm:
            let volts = batteryMillivolts
            return [0x20, 0x00, UInt8(volts >> 8), UInt8(volts & 0xFF), 0x80, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]
        }
    }

    /// The radio power the document has a beacon pick for `requested` dBm: the lowest
    /// supported one at or above it, else the highest.
    public static func supportedTxPower(for requested: Int) -> Int {
        supportedTxPowers.first { $0 >= requested } ?? supportedTxPowers.last ?? 0
    }
}
