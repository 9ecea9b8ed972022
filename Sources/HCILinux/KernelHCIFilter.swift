import HCI
import HCITransports

/// The RAW channel's receive filter (`HCI_FILTER` socket option; `struct hci_filter` in
/// BlueZ lib/hci.h, `hci_ufilter` in the kernel's net/bluetooth/hci_sock.c): which packet
/// types, which event codes and which Command Complete/Status opcode the socket receives.
public struct KernelHCIFilter: Hashable, Sendable {
    /// Bit n passes packet type n (the kernel masks the type with 31).
    public var packetTypes: UInt32
    /// Bit n passes event code n (the kernel masks the code with 63).
    public var eventCodes: UInt64
    /// Only Command Complete/Status events for this opcode pass; 0 passes all of them.
    public var opcode: UInt16

    public init(packetTypes: UInt32, eventCodes: UInt64, opcode: UInt16) {
        self.packetTypes = packetTypes
        self.eventCodes = eventCodes
        self.opcode = opcode
    }

    /// What a beacon host needs: every event, and nothing else. Commands would be copies of
    /// what other programs (bluetoothd) send; beacons need no ACL data.
    public static let allEvents = KernelHCIFilter(
        packetTypes: 1 << UInt32(HCIPacketType.event.rawValue), eventCodes: .max, opcode: 0)

    /// The HCI LE Meta event, which carries every LE event (Core v5.4 Vol 4 Part E 7.7.65).
    public static let leMetaEventCode: UInt8 = 0x3E

    public func passes(_ type: HCIPacketType) -> Bool {
        packetTypes & (1 << UInt32(type.rawValue & 31)) != 0
    }

    public func passes(eventCode: UInt8) -> Bool {
        eventCodes & (1 << UInt64(eventCode & 63)) != 0
    }

    /// The option value as the kernel reads it: u32 type mask, u32 event mask[2], u16
    /// opcode, two bytes of padding; native byte order, as for any C struct.
    public var socketOptionBytes: [UInt8] {
        var bytes: [UInt8] = []
        withUnsafeBytes(of: packetTypes) { bytes += $0 }
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: eventCodes)) { bytes += $0 }
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: eventCodes >> 32)) { bytes += $0 }
        withUnsafeBytes(of: opcode) { bytes += $0 }
        return bytes + [0, 0]
    }

    /// Decodes what `getsockopt(HCI_FILTER)` returned; `nil` if it is too short.
    public init?(socketOptionBytes bytes: [UInt8]) {
        guard bytes.count >= 14 else { return nil }
        func field<Value: FixedWidthInteger>(_ offset: Int, as _: Value.Type) -> Value {
            bytes[offset..<offset + MemoryLayout<Value>.size].withUnsafeBytes {
                $0.loadUnaligned(as: Value.self)
            }
        }
        packetTypes = field(0, as: UInt32.self)
        eventCodes = UInt64(field(4, as: UInt32.self)) | UInt64(field(8, as: UInt32.self)) << 32
        opcode = field(12, as: UInt16.self)
    }
}
