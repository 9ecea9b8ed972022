import BeaconCore
import HCI

extension SightingExtractor {
    /// The common case of `extract(from:at:)` read in place from the event's bytes (code,
    /// length, parameters), with no decoded event, report or AD structure made: an LE
    /// Advertising Report event whose lengths all agree. Appends what `extract` would give,
    /// counts what it would count, and returns true; returns false, having changed nothing,
    /// for anything else (other events, any length that disagrees, malformed AD data), which
    /// the caller then decodes in full. Recordings bring millions of these.
    mutating func extractLegacyReports(inEvent body: UnsafeBufferPointer<UInt8>, at time: Double, into sightings: inout [Sighting]) -> Bool {
        // Event code, parameter length, subevent, number of reports.
        guard body.count >= 4, body[0] == 0x3E, Int(body[1]) == body.count - 2, body[2] == 0x02 else { return false }
        let reportCount = Int(body[3])
        // First pass: every length checked, so that the second cannot fail half-way.
        var offset = 4
        for _ in 0..<reportCount {
            guard body.count - offset >= 10 else { return false }
            let dataLength = Int(body[offset + 8])
            let dataStart = offset + 9
            guard body.count - dataStart >= dataLength + 1,
                  Self.structuresAreWhole(body, from: dataStart, to: dataStart + dataLength)
            else { return false }
            offset = dataStart + dataLength + 1
        }
        guard offset == body.count else { return false }

        offset = 4
        for _ in 0..<reportCount {
            let dataLength = Int(body[offset + 8])
            let dataStart = offset + 9
            counts.reports += 1
            // Address (6 octets, least significant first) after event type and address type.
            func address() -> BluetoothAddress {
                var address: UInt64 = 0
                for index in (offset + 2..<offset + 8).reversed() { address = address << 8 | UInt64(body[index]) }
                return BluetoothAddress(truncating: address)
            }
            if let beacon = Self.firstIBeacon(in: body, from: dataStart, to: dataStart + dataLength) {
                counts.iBeaconReports += 1
                let rssi = body[dataStart + dataLength]
                sightings.append(Sighting(
                    advertisement: beacon, address: address(),
                    addressIsRandom: Self.isRandom(LEAddressType(rawValue: body[offset + 1])),
                    rssi: rssi == 0x7F ? nil : Int(Int8(bitPattern: rssi)), time: time, clock: Self.clock,
                    receiver: receiver))
            } else {
                counts.otherReports += 1
                if let found = Self.telemetry(in: body, from: dataStart, to: dataStart + dataLength) {
                    var ignored = Extraction()
                    note(found, address: address(), addressIsRandom: Self.isRandom(LEAddressType(rawValue: body[offset + 1])),
                         time: time, into: &ignored)
                }
            }
            offset = dataStart + dataLength + 1
        }
        return true
    }

    /// Whether the AD structures in `start..<end` parse (`AdvertisingData.parse` succeeds):
    /// none runs past the end; a zero length ends them.
    private static func structuresAreWhole(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        var offset = start
        while offset < end {
            let length = Int(bytes[offset])
            if length == 0 { return true }
            guard length <= end - offset - 1 else { return false }
            offset += 1 + length
        }
        return true
    }

    /// `AdvertisedTelemetry(structures:)` over whole AD structures in `start..<end`: only a
    /// structure that may hold a frame (service data or manufacturer data of the right
    /// identifier) is copied out and read.
    private static func telemetry(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> AdvertisedTelemetry? {
        var offset = start
        while offset < end {
            let length = Int(bytes[offset])
            if length == 0 { return nil }
            // Type, then a 16-bit UUID or company identifier (least significant byte first), then a frame byte.
            if length >= 4 {
                let type = bytes[offset + 1]
                let identifier = UInt16(bytes[offset + 2]) | UInt16(bytes[offset + 3]) << 8
                if (type == AdvertisedTelemetry.serviceData16Type && identifier == EddystoneTelemetry.serviceUUID)
                    || (type == ADStructure.manufacturerSpecificType && identifier == KKMTelemetry.companyIdentifier),
                   let found = AdvertisedTelemetry(structure: ADStructure(
                       type: type, data: Array(bytes[(offset + 2)..<(offset + 1 + length)]))) {
                    return found
                }
            }
            offset += 1 + length
        }
        return nil
    }

    /// `firstIBeacon(in:)` over whole AD structures in `start..<end`, in place.
    private static func firstIBeacon(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> IBeaconAdvertisement? {
        var offset = start
        while offset < end {
            let length = Int(bytes[offset])
            if length == 0 { return nil }
            // Manufacturer specific (0xFF): Apple (0x004C), iBeacon type 0x02, length 0x15.
            if length == 26, bytes[offset + 1] == ADStructure.manufacturerSpecificType,
               bytes[offset + 2] == 0x4C, bytes[offset + 3] == 0x00, bytes[offset + 4] == 0x02, bytes[offset + 5] == 0x15 {
                let fields = offset + 6
                var high: UInt64 = 0
                var low: UInt64 = 0
                for index in 0..<8 {
                    high = high << 8 | UInt64(bytes[fields + index])
                    low = low << 8 | UInt64(bytes[fields + 8 + index])
                }
                let major = UInt16(bytes[fields + 16]) << 8 | UInt16(bytes[fields + 17])
                let minor = UInt16(bytes[fields + 18]) << 8 | UInt16(bytes[fields + 19])
                return IBeaconAdvertisement(
                    identity: BeaconIdentity(uuid: ProximityUUID(high: high, low: low), major: major, minor: minor),
                    measuredPower: Int8(bitPattern: bytes[fields + 20]))
            }
            offset += 1 + length
        }
        return nil
    }

    /// The sighting in a link-layer packet as a sniffer captures it from the air (Core v5.4
    /// Vol 6 Part B 2.1, 2.3): access address (4 octets, little-endian), PDU header (2),
    /// payload, CRC. Only advertising-channel packets (access address 0x8E89BED6) whose PDU
    /// carries AdvA and AdvData are reports: ADV_IND, ADV_NONCONN_IND, ADV_SCAN_IND and
    /// SCAN_RSP; each is counted and read as a controller's report of it would be.
    mutating func extractAdvertisingPDU(_ packet: UnsafeBufferPointer<UInt8>, rssi: Int8?, at time: Double, into sightings: inout [Sighting]) {
        guard packet.count >= 6 else { return }
        let accessAddress = UInt32(packet[0]) | UInt32(packet[1]) << 8 | UInt32(packet[2]) << 16 | UInt32(packet[3]) << 24
        guard accessAddress == 0x8E89_BED6 else { return }
        let header = packet[4]
        let length = Int(packet[5])
        // PDU types 0 ADV_IND, 2 ADV_NONCONN_IND, 4 SCAN_RSP, 6 ADV_SCAN_IND (Vol 6 Part B 2.3).
        switch header & 0x0F {
        case 0, 2, 4, 6: break
        default: return
        }
        counts.reports += 1
        guard length >= 6, packet.count - 6 >= length else {
            counts.malformedData += 1
            return
        }
        var address: UInt64 = 0
        for index in (6..<12).reversed() { address = address << 8 | UInt64(packet[index]) }
        var extraction = Extraction()
        // TxAdd (header bit 6): the advertiser's address is random.
        take(Array(packet[12..<(6 + length)]), address: BluetoothAddress(truncating: address),
             addressType: header & 0x40 != 0 ? .random : .public, rssi: rssi, time: time, into: &extraction)
        sightings += extraction.sightings
    }
}
