import HCI

/// The fixed L2CAP channels of an LE link (Core v5.4 Vol 3 Part A 2.1, table 2.3).
public enum L2CAPChannel {
    /// The Attribute Protocol.
    public static let attribute: UInt16 = 0x0004
    /// The LE signalling channel.
    public static let leSignalling: UInt16 = 0x0005
    /// The Security Manager Protocol.
    public static let securityManager: UInt16 = 0x0006
}

/// An L2CAP basic frame, B-frame (Core v5.4 Vol 3 Part A 3.1):
/// `length u16 | channel_id u16 | information payload`, little-endian.
public struct L2CAPFrame: Hashable, Sendable {
    public static let headerLength = 4

    public var channel: UInt16
    public var payload: [UInt8]

    public init(channel: UInt16, payload: [UInt8]) {
        self.channel = channel
        self.payload = payload
    }

    /// Decodes one whole frame: its length field must match the payload present.
    public init(bytes: [UInt8]) throws(HCIDecodingError) {
        var reader = HCIByteReader(bytes, structure: "L2CAP basic frame")
        let length = Int(try reader.readUInt16())
        channel = try reader.readUInt16()
        guard length == reader.remainingCount else {
            throw .lengthMismatch(structure: "L2CAP basic frame", declared: length, actual: reader.remainingCount)
        }
        payload = Array(reader.readRemaining())
    }

    /// The frame's bytes; `nil` when the payload exceeds the 16-bit length field.
    public var bytes: [UInt8]? {
        guard payload.count <= Int(UInt16.max) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.headerLength + payload.count)
        bytes.appendLittleEndian(UInt16(truncatingIfNeeded: payload.count))
        bytes.appendLittleEndian(channel)
        bytes += payload
        return bytes
    }

    /// The frame cut into ACL packets of at most `fragmentLength` data bytes each: the first
    /// marked "first, non-flushable" (the only start an LE host may send, Core v5.4 Vol 4
    /// Part E 5.4.2), the rest "continuation". `nil` when the frame is too long to encode or
    /// `fragmentLength` is below 1.
    public func fragments(handle: UInt16, fragmentLength: Int) -> [ACLDataPacket]? {
        guard fragmentLength >= 1, let bytes else { return nil }
        var packets: [ACLDataPacket] = []
        packets.reserveCapacity((bytes.count + fragmentLength - 1) / fragmentLength)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + fragmentLength)
            packets.append(ACLDataPacket(
                handle: handle, boundary: start == 0 ? .firstNonFlushable : .continuation, data: Array(bytes[start..<end])))
            start = end
        }
        return packets
    }
}
