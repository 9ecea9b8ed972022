import BeaconCore
import HCI

/// pcap and pcapng files built byte by byte, in either byte order, for the capture tests.
struct CaptureBytes {
    var bytes: [UInt8] = []
    let bigEndian: Bool

    init(bigEndian: Bool = false) {
        self.bigEndian = bigEndian
    }

    mutating func u16(_ value: UInt16) {
        let pair = [UInt8(value & 0xFF), UInt8(value >> 8)]
        bytes += bigEndian ? pair.reversed() : pair
    }

    mutating func u32(_ value: UInt32) {
        let quad = (0..<4).map { UInt8((value >> (8 * UInt32($0))) & 0xFF) }
        bytes += bigEndian ? quad.reversed() : quad
    }

    /// A pcapng timestamp: the high 32 bits, then the low, each in the file's byte order.
    mutating func timestamp(_ value: UInt64) {
        u32(UInt32(value >> 32))
        u32(UInt32(value & 0xFFFF_FFFF))
    }

    /// A 64-bit number in the file's byte order.
    mutating func u64(_ value: UInt64) {
        if bigEndian {
            u32(UInt32(value >> 32))
            u32(UInt32(value & 0xFFFF_FFFF))
        } else {
            u32(UInt32(value & 0xFFFF_FFFF))
            u32(UInt32(value >> 32))
        }
    }

    mutating func padded(_ data: [UInt8]) {
        bytes += data + [UInt8](repeating: 0, count: (4 - data.count % 4) % 4)
    }
}

enum PcapFile {
    /// A pcap file: header, then one record per packet (`seconds`, microseconds or
    /// nanoseconds in `fraction`).
    static func make(
        linkType: UInt32, bigEndian: Bool = false, nanoseconds: Bool = false,
        packets: [(seconds: UInt32, fraction: UInt32, data: [UInt8])]
    ) -> [UInt8] {
        var file = CaptureBytes(bigEndian: bigEndian)
        file.u32(nanoseconds ? 0xA1B2_3C4D : 0xA1B2_C3D4)
        file.u16(2)
        file.u16(4)
        file.u32(0)
        file.u32(0)
        file.u32(65_535)
        file.u32(linkType)
        for packet in packets {
            file.u32(packet.seconds)
            file.u32(packet.fraction)
            file.u32(UInt32(packet.data.count))
            file.u32(UInt32(packet.data.count))
            file.bytes += packet.data
        }
        return file.bytes
    }
}

/// pcapng blocks; a file is their concatenation.
enum PcapngBlock {
    static func block(_ type: UInt32, bigEndian: Bool, body: (inout CaptureBytes) -> Void) -> [UInt8] {
        var content = CaptureBytes(bigEndian: bigEndian)
        body(&content)
        var block = CaptureBytes(bigEndian: bigEndian)
        block.u32(type)
        block.u32(UInt32(12 + content.bytes.count))
        block.bytes += content.bytes
        block.u32(UInt32(12 + content.bytes.count))
        return block.bytes
    }

    static func section(bigEndian: Bool = false) -> [UInt8] {
        block(0x0A0D_0D0A, bigEndian: bigEndian) { body in
            body.u32(0x1A2B_3C4D)
            body.u16(1)
            body.u16(0)
            body.u64(UInt64.max)  // length unknown
        }
    }

    /// `resolution`: the `if_tsresol` byte; `offset`: `if_tsoffset` seconds.
    static func interface(linkType: UInt16, bigEndian: Bool = false, resolution: UInt8? = nil, offset: Int64? = nil) -> [UInt8] {
        block(1, bigEndian: bigEndian) { body in
            body.u16(linkType)
            body.u16(0)
            body.u32(0)
            // An option this reader does not use comes first: if_name "hci0".
            body.u16(2)
            body.u16(4)
            body.padded(Array("hci0".utf8))
            if let resolution {
                body.u16(9)
                body.u16(1)
                body.padded([resolution])
            }
            if let offset {
                body.u16(14)
                body.u16(8)
                body.u64(UInt64(bitPattern: offset))
            }
            body.u16(0)
            body.u16(0)
        }
    }

    static func enhanced(interface: UInt32, timestamp: UInt64, data: [UInt8], bigEndian: Bool = false) -> [UInt8] {
        block(6, bigEndian: bigEndian) { body in
            body.u32(interface)
            body.timestamp(timestamp)
            body.u32(UInt32(data.count))
            body.u32(UInt32(data.count))
            body.padded(data)
        }
    }

    static func simple(data: [UInt8], bigEndian: Bool = false) -> [UInt8] {
        block(3, bigEndian: bigEndian) { body in
            body.u32(UInt32(data.count))
            body.padded(data)
        }
    }

    /// The obsolete Packet Block (type 2).
    static func obsolete(interface: UInt16, timestamp: UInt64, data: [UInt8], bigEndian: Bool = false) -> [UInt8] {
        block(2, bigEndian: bigEndian) { body in
            body.u16(interface)
            body.u16(0)
            body.timestamp(timestamp)
            body.u32(UInt32(data.count))
            body.u32(UInt32(data.count))
            body.padded(data)
        }
    }

    /// A block of a type this reader does not know (a custom block, 0x00000BAD).
    static func unknown(bigEndian: Bool = false) -> [UInt8] {
        block(0x0000_0BAD, bigEndian: bigEndian) { body in body.padded(Array("skip me".utf8)) }
    }
}

enum CapturePackets {
    /// An LE Advertising Report event with one iBeacon report, without the H4 indicator.
    static func reportEvent(_ address: String, rssi: Int8?, random: Bool = false, data: [UInt8] = testIBeaconData) throws -> [UInt8] {
        let report = LEAdvertisingReport(
            eventType: .advNonconnInd, addressType: random ? .random : .public, address: try bluetoothAddress(address),
            data: data, rssi: rssi)
        return try HCIEvent.le(.advertisingReport([report])).packet().body
    }

    /// An advertising-channel link-layer packet as a sniffer captures it: access address,
    /// header (PDU type, TxAdd), AdvA, AdvData, CRC.
    static func linkLayer(type: UInt8 = 2, address: String, random: Bool = false, data: [UInt8] = testIBeaconData) throws -> [UInt8] {
        let advertiser = try bluetoothAddress(address).littleEndianBytes
        return [0xD6, 0xBE, 0x89, 0x8E, type | (random ? 0x40 : 0), UInt8(6 + data.count)] + advertiser + data + [0x11, 0x22, 0x33]
    }

    /// `packet` as the nRF Sniffer for Bluetooth LE hands it to Wireshark (link type 272):
    /// its headers in protocol `version` 0 (legacy), 1, 2 or 3, with the RSSI's magnitude
    /// and the flags (bit 0 CRC right, bits 4-6 the PHY) of a received packet.
    static func nordic(_ packet: [UInt8], version: UInt8, rssiMagnitude: UInt8, flags: UInt8 = 0x01, packetID: UInt8? = nil) -> [UInt8] {
        let event: [UInt8] = [flags, 37, rssiMagnitude, 0x34, 0x12, 0x10, 0x20, 0x30, 0x40]  // channel, event counter, time
        switch version {
        case 0:
            return [0xBE, 0xEF, packetID ?? 0x06, 0x01, 0x00, 0, 0, UInt8(event.count + packet.count)] + event + packet
        case 1:
            let payload = [UInt8(1 + event.count)] + event + packet
            return [0x00, 6, UInt8(payload.count), 1, 0x01, 0x00, packetID ?? 0x06] + payload
        default:
            let payload = [UInt8(1 + event.count)] + event + packet
            let length = UInt16(payload.count)
            return [0x00, UInt8(length & 0xFF), UInt8(length >> 8), version, 0x01, 0x00, packetID ?? (version >= 3 ? 0x02 : 0x06)]
                + payload
        }
    }

    /// The 10-octet pseudo-header of link type 256 before `packet`.
    static func withRadioHeader(_ packet: [UInt8], signal: Int8, flags: UInt16) -> [UInt8] {
        [37, UInt8(bitPattern: signal), 0x80, 0, 0xD6, 0xBE, 0x89, 0x8E, UInt8(flags & 0xFF), UInt8(flags >> 8)] + packet
    }
}
