/// A packet of the nRF Sniffer for Bluetooth LE as Wireshark's capture files hold it
/// (LINKTYPE_NORDIC_BLE, 272): the sniffer's own headers, then the link-layer packet as on
/// the air without its preamble (access address, PDU, CRC), as for link type 251.
///
/// Layout (the sniffer's UART protocol, versions 0 to 3, as Wireshark's `nordic_ble`
/// dissector reads it):
/// - version 0 ("legacy"): `BE EF`, packet id, counter (2), unused (2), payload length (1);
///   then flags, channel, RSSI, event counter (2), time (4); the link layer at offset 17.
/// - version 1: board id, header length (1), payload length (1), version, counter (2),
///   packet id; then the event packet: its length (1, counted from itself), flags, channel,
///   RSSI, event counter (2), time (4); then the link layer.
/// - version 2 and later: board id, payload length (2, little-endian), version, counter (2),
///   packet id; then the event packet as for version 1.
///
/// Flags: bit 0 the CRC was right; bits 4–6 the PHY (0 1M, 1 2M, 2 coded). RSSI is stored
/// as its magnitude: the signal is minus that many dBm.
public struct NordicSnifferPacket: Sendable {
    /// Where the link-layer packet starts.
    public let linkLayerOffset: Int
    /// The received signal strength, dBm; `nil` when the sniffer's magnitude is beyond 128
    /// (no RSSI an Int8 can hold, so none a sighting could carry).
    public let rssi: Int8?

    /// What a packet of this link type may be beside a readable one.
    public enum Reading: Sendable {
        case packet(NordicSnifferPacket)
        /// A packet that is not a received one on an uncoded PHY with a right CRC: a
        /// sniffer notice, a coded-PHY packet (its CI field sits before the PDU), or one
        /// the radio received with a wrong CRC. Nothing to read, nothing wrong.
        case skipped
        /// Headers whose lengths disagree with each other or with the record.
        case malformed
    }

    /// The sniffer's packet ids of received packets: 0x06 (any packet before version 3; a
    /// data-channel packet in version 3) and 0x02 (an advertising-channel packet, version 3).
    private static let receivedPacketIDs: Set<UInt8> = [0x02, 0x06]

    public static func read(_ data: UnsafeBufferPointer<UInt8>) -> Reading {
        let packetID: UInt8
        let eventStart: Int  // the event packet's flags
        let linkLayerOffset: Int
        if data.count >= 2, data[0] == 0xBE, data[1] == 0xEF {
            guard data.count >= 17 else { return .malformed }
            // The payload length counts what follows the 8-octet header.
            guard 8 + Int(data[7]) == data.count else { return .malformed }
            packetID = data[2]
            eventStart = 8
            linkLayerOffset = 17
        } else {
            guard data.count >= 8 else { return .malformed }
            let version = data[3]
            let headerLength: Int
            let payloadLength: Int
            if version == 1 {
                headerLength = Int(data[1]) + 1  // the header length leaves out the board id
                payloadLength = Int(data[2])
            } else if version >= 2 {
                headerLength = 7
                payloadLength = Int(data[1]) | Int(data[2]) << 8
            } else {
                return .malformed
            }
            guard headerLength == 7, headerLength + payloadLength == data.count else { return .malformed }
            packetID = data[6]
            // The event packet's length counts its own length octet: the link layer follows it.
            let eventLength = Int(data[7])
            guard eventLength >= 10, 7 + eventLength <= data.count else { return .malformed }
            eventStart = 8
            linkLayerOffset = 7 + eventLength
        }
        guard receivedPacketIDs.contains(packetID) else { return .skipped }
        let flags = data[eventStart]
        let phy = (flags >> 4) & 0x07
        guard flags & 0x01 != 0, phy <= 1 else { return .skipped }
        let magnitude = Int(data[eventStart + 2])
        return .packet(NordicSnifferPacket(linkLayerOffset: linkLayerOffset, rssi: Int8(exactly: -magnitude)))
    }
}

/// The 10-octet radio pseudo-header of LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR (256) that stands
/// before the link-layer packet (tcpdump.org's LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR page):
/// RF channel (1), signal power (1, signed dBm), noise power (1), access address offenses
/// (1), reference access address (4), flags (2, little-endian).
public struct LERadioPseudoHeader: Sendable {
    public static let length = 10

    /// The signal power, dBm, when the header marks it valid (flags bit 1).
    public let signalPower: Int8?
    /// Whether the packet is on the uncoded PHY (PDU type 0 in flags bits 7–9) and its CRC
    /// was not checked and found wrong (flags bits 10–11 other than "checked, wrong"): the
    /// only packets read as advertisements.
    public let isReadable: Bool

    /// `nil` when `data` is shorter than the header.
    public init?(_ data: UnsafeBufferPointer<UInt8>) {
        guard data.count >= Self.length else { return nil }
        let flags = UInt16(data[8]) | UInt16(data[9]) << 8
        signalPower = flags & 0x0002 != 0 ? Int8(bitPattern: data[1]) : nil
        isReadable = flags & 0x0380 == 0 && flags & 0x0C00 != 0x0400
    }
}
