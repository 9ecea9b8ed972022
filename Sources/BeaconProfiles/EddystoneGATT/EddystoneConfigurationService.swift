import LECentral

/// The Eddystone Configuration GATT Service (google/eddystone, configuration-service/README.md):
/// its UUIDs and the layouts of the values this profile reads and writes. Values are
/// big-endian unless the document says otherwise (its service notes).
package enum EddystoneConfigurationService {
    /// `a3c87500-8ed3-4bdf-8a39-a01bebede295`; characteristic n is `a3c875nn-…`.
    package static let service = uuid(0x00)
    package static let capabilities = uuid(0x01)
    package static let activeSlot = uuid(0x02)
    package static let advertisingInterval = uuid(0x03)
    package static let radioTxPower = uuid(0x04)
    package static let advertisedTxPower = uuid(0x05)
    package static let lockState = uuid(0x06)
    package static let unlock = uuid(0x07)
    package static let slotData = uuid(0x0A)
    package static let factoryReset = uuid(0x0B)

    private static func uuid(_ number: UInt8) -> AttributeUUID {
        let digits = String(number, radix: 16)
        return AttributeUUID("a3c875\(digits.count == 1 ? "0" + digits : digits)-8ed3-4bdf-8a39-a01bebede295") ?? AttributeUUID(0)
    }

    /// Characteristic 6, Lock State: 0x00 locked, 0x01 unlocked, 0x02 unlocked with
    /// automatic relocking disabled.
    package enum LockState: UInt8, Sendable {
        case locked = 0x00
        case unlocked = 0x01
        case unlockedWithoutRelock = 0x02
    }

    /// Characteristic 11: the one value that resets (any other is ignored).
    static let factoryResetValue: UInt8 = 0x0B

    /// Characteristic 1, Capabilities (at least 7 bytes): version, total slots, EID slots,
    /// capability bits (0x01 per-slot interval, 0x02 per-slot Tx power), supported frame types
    /// (16 bits), then the supported radio Tx powers in dBm, lowest first.
    package struct Capabilities: Equatable, Sendable {
        package var version: UInt8
        package var maximumSlots: Int
        package var maximumEIDSlots: Int
        package var perSlotInterval: Bool
        package var perSlotTxPower: Bool
        package var frameTypes: UInt16
        package var txPowers: [Int]

        package init(bytes: [UInt8]) throws(EddystoneDecodeError) {
            guard bytes.count >= 7 else { throw .tooShort(what: "Capabilities", length: bytes.count, needed: 7) }
            guard bytes.count <= 6 + 256 else { throw .tooLong(what: "Capabilities", length: bytes.count) }
            version = bytes[0]
            maximumSlots = Int(bytes[1])
            maximumEIDSlots = Int(bytes[2])
            perSlotInterval = bytes[3] & 0x01 != 0
            perSlotTxPower = bytes[3] & 0x02 != 0
            frameTypes = UInt16(bytes[4]) << 8 | UInt16(bytes[5])
            txPowers = bytes[6...].map { Int(Int8(bitPattern: $0)) }
        }
    }

    /// Characteristic 3: the interval in milliseconds, 16 bits big-endian.
    package static func interval(_ bytes: [UInt8]) throws(EddystoneDecodeError) -> Int {
        guard bytes.count == 2 else { throw .wrongLength(what: "Advertising Interval", length: bytes.count, expected: 2) }
        return Int(UInt16(bytes[0]) << 8 | UInt16(bytes[1]))
    }

    package static func intervalBytes(_ milliseconds: UInt16) -> [UInt8] {
        [UInt8(milliseconds >> 8), UInt8(milliseconds & 0xFF)]
    }

    /// Characteristics 4 and 5: one signed byte, dBm.
    package static func power(_ bytes: [UInt8], what: String) throws(EddystoneDecodeError) -> Int {
        guard bytes.count == 1 else { throw .wrongLength(what: what, length: bytes.count, expected: 1) }
        return Int(Int8(bitPattern: bytes[0]))
    }

    package static func lockState(_ bytes: [UInt8]) throws(EddystoneDecodeError) -> LockState {
        guard bytes.count == 1 else { throw .wrongLength(what: "Lock State", length: bytes.count, expected: 1) }
        guard let state = LockState(rawValue: bytes[0]) else { throw .unknownLockState(bytes[0]) }
        return state
    }

    /// Characteristic 7, read: the 16-byte challenge.
    package static func challenge(_ bytes: [UInt8]) throws(EddystoneDecodeError) -> [UInt8] {
        guard bytes.count == 16 else { throw .wrongLength(what: "Unlock challenge", length: bytes.count, expected: 16) }
        return bytes
    }

    /// A lock code as users give it: 32 hexadecimal digits (16 bytes, big-endian), `nil`
    /// for anything else.
    static func lockCode(_ password: BeaconPassword) -> [UInt8]? {
        let digits = password.utf8
        guard digits.count == 32 else { return nil }
        var code: [UInt8] = []
        code.reserveCapacity(16)
        var index = 0
        while index < 32 {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            code.append(high << 4 | low)
            index += 2
        }
        return code
    }

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Why a value read from the Eddystone Configuration Service is not what its document says.
package enum EddystoneDecodeError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooShort(what: String, length: Int, needed: Int)
    case tooLong(what: String, length: Int)
    case wrongLength(what: String, length: Int, expected: Int)
    case unknownLockState(UInt8)

    package var description: String {
        switch self {
        case .tooShort(let what, let length, let needed): "\(what) of \(length) bytes (at least \(needed))"
        case .tooLong(let what, let length): "\(what) of \(length) bytes"
        case .wrongLength(let what, let length, let expected): "\(what) of \(length) bytes (\(expected) expected)"
        case .unknownLockState(let value): "a lock state of \(value) (0, 1 or 2 expected)"
        }
    }
}
