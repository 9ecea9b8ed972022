import HCI

/// Bytes from a hex string such as `"01 03 0c 00"`; spaces are ignored.
public func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace })
    var bytes: [UInt8] = []
    var index = 0
    while index + 1 < digits.count {
        bytes.append(UInt8(String(digits[index...index + 1]), radix: 16) ?? 0xEE)
        index += 2
    }
    return bytes
}

/// An H4 byte string (indicator first) as a packet.
public func packet(_ text: String) -> HCIPacket {
    let bytes = hex(text)
    return HCIPacket(type: HCIPacketType(rawValue: bytes.first ?? 0) ?? .event, body: Array(bytes.dropFirst()))
}
