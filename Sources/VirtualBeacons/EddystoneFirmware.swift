import BeaconCore
import CryptoPrimitives
import LECentral

/// The beacon's side of the Eddystone Configuration GATT Service, from google/eddystone
/// `configuration-service/README.md` (service a3c87500-8ed3-4bdf-8a39-a01bebede295,
/// characteristic n a3c875nn-…; values big-endian):
///
/// - While locked only Lock State (6) and Unlock (7) are readable, and Remain Connectable
///   (12), whose lock requirement is for writes only; any other read is Read Not Permitted,
///   any write but the unlock token Write Not Permitted (the document's Return Codes).
/// - Unlock: a read gives a fresh 16-byte challenge, good for one token; the token is
///   AES-128-ECB(key = lock code, challenge). A wrong token, or one with no challenge read
///   before it, is Write Not Permitted. Unlock is refused (read and write) while unlocked.
/// - Lock State writes: 0x00 locks; 0x00 and the new code enciphered with the current one
///   (AES-128-ECB; the beacon deciphers it) locks with the new code; 0x02 disables the
///   automatic relock. Any other value is Invalid Attribute Length, the document's code for
///   a parameter out of range.
/// - A link that ends unlocked (0x01) locks again; 0x02 stays unlocked. The active slot is 0
///   on every connection.
/// - Factory Reset (11): 0x0B resets the slots, keeping the lock code, only in lock state
///   0x01; any other value is ignored.
///
/// The simulation's own rules: after `attemptsBeforeLockOut` wrong tokens the beacon
/// refuses every token, the right one too, for as long as it runs (as the virtual KBeacon
/// does); a token written without a challenge read before it is refused without counting
/// (it tested no code). It has no EID: slot data with the EID frame type is out of range
/// (Invalid Attribute Length), and the ECDH key and identity key reads are Request Not
/// Supported once unlocked.
struct EddystoneFirmware: Sendable {
    enum Characteristic: UInt8, CaseIterable, Sendable {
        case capabilities = 1, activeSlot, advertisingInterval, radioTxPower, advertisedTxPower, lockState, unlock
        case publicECDHKey, eidIdentityKey, slotData, factoryReset, remainConnectable

        var uuid: AttributeUUID {
            let digits = String(rawValue, radix: 16)
            let text = "a3c875\(digits.count == 1 ? "0" : "")\(digits)-8ed3-4bdf-8a39-a01bebede295"
            return AttributeUUID(text) ?? AttributeUUID(0)
        }

        /// The properties the document gives each (read, write, or both).
        var properties: GATTCharacteristicProperties {
            switch self {
            case .capabilities, .publicECDHKey, .eidIdentityKey: .read
            case .factoryReset: .write
            default: [.read, .write]
            }
        }
    }

    static let service = AttributeUUID("a3c87500-8ed3-4bdf-8a39-a01bebede295") ?? AttributeUUID(0)

    /// Lock State's values (characteristic 6).
    enum LockState: UInt8, Sendable {
        case locked = 0x00, unlocked = 0x01, unlockedWithoutRelock = 0x02
    }

    var state: EddystoneBeaconState
    /// What a factory reset returns to (with the lock code and battery kept).
    let factoryState: EddystoneBeaconState
    let attemptsBeforeLockOut: Int
    private(set) var lockState = LockState.locked
    private(set) var failedAttempts = 0
    private(set) var lockedOut = false
    /// How many challenges were read: a test's evidence that a central touched the lock.
    private(set) var challengesIssued = 0
    private(set) var factoryResets = 0
    private var generator: SeededGenerator

    // Per link.
    private(set) var activeSlot = 0
    private var challenge: [UInt8]?

    init(state: EddystoneBeaconState, factoryState: EddystoneBeaconState, attemptsBeforeLockOut: Int, seed: UInt64) {
        self.state = Self.withSlotCount(state)
        self.factoryState = Self.withSlotCount(factoryState)
        self.attemptsBeforeLockOut = max(1, attemptsBeforeLockOut)
        generator = SeededGenerator(seed: seed)
    }

    var isUnlocked: Bool { lockState != .locked }

    /// `state` with exactly ``EddystoneBeaconState/slotCount`` slots (a configuration given
    /// fewer gets empty ones; the active slot indexes them), each within the model's limits.
    private static func withSlotCount(_ state: EddystoneBeaconState) -> EddystoneBeaconState {
        var state = state
        let empty = EddystoneBeaconState.Slot(frame: nil, interval: 1000, radioTxPower: 0)
        state.slots = Array((state.slots + Array(repeating: empty, count: EddystoneBeaconState.slotCount)).prefix(EddystoneBeaconState.slotCount))
        let range = EddystoneBeaconState.intervals
        for index in state.slots.indices {
            state.slots[index].interval = min(max(state.slots[index].interval, range.lowerBound), range.upperBound)
            state.slots[index].radioTxPower = EddystoneBeaconState.supportedTxPower(for: state.slots[index].radioTxPower)
        }
        return state
    }

    /// A new link, or the end of one: slot 0 active, no challenge outstanding, and an
    /// unlocked beacon locked again unless its automatic relock was disabled.
    mutating func startSession() {
        activeSlot = 0
        challenge = nil
        if lockState == .unlocked { lockState = .locked }
    }

    // MARK: Reads

    mutating func read(_ characteristic: Characteristic) -> AttributeRead {
        switch characteristic {
        case .lockState:
            return .value([lockState.rawValue])
        case .unlock:
            guard !isUnlocked else { return .refused(.readNotPermitted) }
            let fresh = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            challenge = fresh
            challengesIssued += 1
            return .value(fresh)
        case .remainConnectable:
            // Zero: the simulated beacon is always connectable.
            return .value([0x00])
        default:
            break
        }
        guard isUnlocked else { return .refused(.readNotPermitted) }
        let slot = state.slots[activeSlot]
        switch characteristic {
        case .capabilities:
            // Version 0, slots, EID slots 0, variable interval and power (0x01 | 0x02),
            // frame types UID | URL | TLM (0x0007, high byte first), the power table.
            let powers = EddystoneBeaconState.supportedTxPowers.map { UInt8(bitPattern: Int8(clamping: $0)) }
            return .value([0x00, UInt8(EddystoneBeaconState.slotCount), 0x00, 0x03, 0x00, 0x07] + powers)
        case .activeSlot:
            return .value([UInt8(activeSlot)])
        case .advertisingInterval:
            let interval = UInt16(clamping: slot.interval)
            return .value([UInt8(interval >> 8), UInt8(interval & 0xFF)])
        case .radioTxPower:
            return .value([UInt8(bitPattern: Int8(clamping: slot.radioTxPower))])
        case .advertisedTxPower:
            return .value([UInt8(bitPattern: Int8(clamping: slot.advertisedPower))])
        case .slotData:
            return .value(state.broadcastFrame(slot: activeSlot))
        case .publicECDHKey, .eidIdentityKey:
            return .refused(.requestNotSupported)
        case .factoryReset, .lockState, .unlock, .remainConnectable:
            return .refused(.readNotPermitted)
        }
    }

    // MARK: Writes

    /// `nil` when the write is taken (and applied), else the document's error.
    mutating func write(_ characteristic: Characteristic, _ value: [UInt8]) -> ATTErrorCode? {
        if characteristic == .unlock { return unlock(value) }
        guard isUnlocked else { return .writeNotPermitted }
        switch characteristic {
        case .activeSlot:
            guard value.count == 1, Int(value[0]) < EddystoneBeaconState.slotCount else { return .invalidAttributeValueLength }
            activeSlot = Int(value[0])
        case .advertisingInterval:
            guard value.count == 2 else { return .invalidAttributeValueLength }
            let requested = Int(value[0]) << 8 | Int(value[1])
            let range = EddystoneBeaconState.intervals
            state.slots[activeSlot].interval = min(max(requested, range.lowerBound), range.upperBound)
        case .radioTxPower:
            guard value.count == 1 else { return .invalidAttributeValueLength }
            state.slots[activeSlot].radioTxPower = EddystoneBeaconState.supportedTxPower(for: Int(Int8(bitPattern: value[0])))
        case .advertisedTxPower:
            guard value.count == 1 else { return .invalidAttributeValueLength }
            state.slots[activeSlot].advertisedTxPower = Int(Int8(bitPattern: value[0]))
        case .lockState:
            return changeLock(value)
        case .slotData:
            return writeSlotData(value)
        case .factoryReset:
            // Only a beacon purposefully unlocked on this link (lock state 0x01).
            guard lockState == .unlocked else { return .writeNotPermitted }
            if value == [0x0B] {
                var reset = factoryState
                reset.lockCode = state.lockCode
                reset.batteryPercent = state.batteryPercent
                state = reset
                activeSlot = 0
                factoryResets += 1
            }
        case .remainConnectable:
            // Always connectable: a no-op, as the document has it.
            break
        case .capabilities, .publicECDHKey, .eidIdentityKey, .unlock:
            return .writeNotPermitted
        }
        return nil
    }

    private mutating func unlock(_ token: [UInt8]) -> ATTErrorCode? {
        guard !isUnlocked else { return .writeNotPermitted }
        guard token.count == 16 else { return .invalidAttributeValueLength }
        guard let challenge else { return .writeNotPermitted }
        // One token per challenge: it cannot be replayed.
        self.challenge = nil
        guard !lockedOut, let expected = Cryptography.aes128ECB(key: state.lockCode, block: challenge), token == expected else {
            failedAttempts += 1
            if failedAttempts >= attemptsBeforeLockOut { lockedOut = true }
            return .writeNotPermitted
        }
        lockState = .unlocked
        return nil
    }

    private mutating func changeLock(_ value: [UInt8]) -> ATTErrorCode? {
        switch value.count {
        case 1 where value[0] == 0x00:
            lockState = .locked
        case 1 where value[0] == 0x02:
            lockState = .unlockedWithoutRelock
        case 17 where value[0] == 0x00:
            guard let code = Cryptography.aes128ECBDecrypt(key: state.lockCode, block: Array(value[1...])) else { return .unlikelyError }
            state.lockCode = code
            lockState = .locked
        default:
            return .invalidAttributeValueLength
        }
        return nil
    }

    /// Write lengths (characteristic 10): empty or 0x00 clears; UID 17; URL 2…19; TLM 1.
    private mutating func writeSlotData(_ value: [UInt8]) -> ATTErrorCode? {
        guard let type = value.first, value != [0x00] else {
            state.slots[activeSlot].frame = nil
            return nil
        }
        switch type {
        case 0x00 where value.count == 17:
            state.slots[activeSlot].frame = .uid(namespace: Array(value[1..<11]), instance: Array(value[11..<17]))
        case 0x10 where (2...19).contains(value.count) && value[1] <= 0x03:
            state.slots[activeSlot].frame = .url(scheme: value[1], encoded: Array(value[2...]))
        case 0x20 where value.count == 1:
            state.slots[activeSlot].frame = .tlm
        default:
            return .invalidAttributeValueLength
        }
        return nil
    }
}
