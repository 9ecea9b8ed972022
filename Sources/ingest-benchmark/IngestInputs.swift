import BeaconCore
import BeaconFleet

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The input formats the benchmark writes and reads.
enum IngestFormat: String, CaseIterable {
    case jsonLines = "jsonl"
    case btsnoop
    case pcapng

    var fileExtension: String { rawValue }
}

/// The recorded air every input holds, whatever its format: 20 beacons of one fleet heard in
/// turn, 10 ms apart. Nineteen are in the plan; the twentieth is not (an unexpected beacon),
/// and the plan's twentieth is never heard, so no pass ends before its input does.
enum IngestScenario {
    static let uuid = ProximityUUID(high: 0x89D6_E936_F61F_4227, low: 0xBCD2_6E94_C5A6_B2E3)
    static let beaconCount = 20
    static let spacingMicroseconds: Int64 = 10_000
    /// 2023-11-14T22:13:20Z, the capture's first record.
    static let startUnixMicroseconds: Int64 = 1_700_000_000_000_000

    static func minor(heardAt index: Int) -> UInt16 {
        let slot = index % beaconCount
        return slot == beaconCount - 1 ? 100 : UInt16(slot + 1)
    }

    static func address(heardAt index: Int) -> BluetoothAddress {
        BluetoothAddress(truncating: 0xC45B_BE00_0000 | UInt64(index % beaconCount))
    }

    static func rssi(heardAt index: Int) -> Int8 {
        Int8(-50 - index % 31)
    }

    static func plan() throws -> VerificationPlan {
        let expected = (1...beaconCount).map { minor in
            ExpectedBeacon(
                beaconID: "b\(minor)", venueID: "bench", identity: BeaconIdentity(uuid: uuid, major: 1, minor: UInt16(minor)),
                measuredPower: .calibrated(-59))
        }
        return try VerificationPlan(expected: expected, fleetUUIDs: [uuid])
    }

    /// The iBeacon advertising data (30 octets): Flags, then Apple's manufacturer data.
    static func advertisingData(minor: UInt16) -> [UInt8] {
        var data: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15]
        for shift in stride(from: 56, through: 0, by: -8) { data.append(UInt8(truncatingIfNeeded: uuid.high >> UInt64(shift))) }
        for shift in stride(from: 56, through: 0, by: -8) { data.append(UInt8(truncatingIfNeeded: uuid.low >> UInt64(shift))) }
        data += [0x00, 0x01, UInt8(minor >> 8), UInt8(minor & 0xFF), 0xC5]
        return data
    }

    /// An H4 LE Advertising Report event with one report (Core v5.4 Vol 4 Part E 7.7.65.2).
    static func h4Event(heardAt index: Int) -> [UInt8] {
        let data = advertisingData(minor: minor(heardAt: index))
        var parameters: [UInt8] = [0x02, 0x01, 0x03, 0x00]
        parameters += address(heardAt: index).littleEndianBytes
        parameters.append(UInt8(data.count))
        parameters += data
        parameters.append(UInt8(bitPattern: rssi(heardAt: index)))
        return [0x04, 0x3E, UInt8(parameters.count)] + parameters
    }
}

/// Writes `count` sightings in `format` to `path`, a megabyte at a time.
func writeInput(_ format: IngestFormat, count: Int, to path: String) -> Bool {
    guard let file = fopen(path, "wb") else { return false }
    defer { fclose(file) }
    var buffer: [UInt8] = []
    buffer.reserveCapacity(1 << 20 + 4096)
    func flush() -> Bool {
        defer { buffer.removeAll(keepingCapacity: true) }
        return buffer.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) } == buffer.count
    }
    switch format {
    case .jsonLines:
        // Each beacon's line up to its RSSI never changes: made once.
        let prefixes = (0..<IngestScenario.beaconCount).map { slot in
            Array(("{\"uuid\":\"\(IngestScenario.uuid)\",\"major\":1,\"minor\":\(IngestScenario.minor(heardAt: slot)),"
                + "\"measured_power\":-59,\"address\":\"\(IngestScenario.address(heardAt: slot))\","
                + "\"address_random\":false,\"rssi\":").utf8)
        }
        for index in 0..<count {
            buffer += prefixes[index % IngestScenario.beaconCount]
            let time = Double(Int64(index) * IngestScenario.spacingMicroseconds) / 1_000_000
            buffer += Array("\(IngestScenario.rssi(heardAt: index)),\"time\":\(SightingJSONLines.timeText(time)),\"clock\":\"elapsed\",\"receiver\":\"hci0\"}\n".utf8)
            if buffer.count >= 1 << 20, !flush() { return false }
        }
    case .btsnoop:
        buffer += Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA]
        let events = (0..<IngestScenario.beaconCount).map { IngestScenario.h4Event(heardAt: $0) }
        for index in 0..<count {
            let event = events[index % IngestScenario.beaconCount]
            let timestamp = IngestScenario.startUnixMicroseconds + Int64(index) * IngestScenario.spacingMicroseconds + 0x00DC_DDB3_0F2F_8000
            appendBigEndian(UInt32(event.count), to: &buffer)
            appendBigEndian(UInt32(event.count), to: &buffer)
            appendBigEndian(UInt32(3), to: &buffer)  // received, an event
            appendBigEndian(UInt32(0), to: &buffer)
            appendBigEndian(UInt32(truncatingIfNeeded: timestamp >> 32), to: &buffer)
            appendBigEndian(UInt32(truncatingIfNeeded: timestamp), to: &buffer)
            buffer += event
            if buffer.count >= 1 << 20, !flush() { return false }
        }
    case .pcapng:
        // Section Header Block (little-endian), one Interface Description Block for link
        // type 201 (H4 with a direction pseudo-header), then an Enhanced Packet Block each.
        appendLittleEndian(0x0A0D_0D0A, to: &buffer)
        appendLittleEndian(28, to: &buffer)
        appendLittleEndian(0x1A2B_3C4D, to: &buffer)
        appendLittleEndian(1, to: &buffer)  // version 1.0
        appendLittleEndian(0xFFFF_FFFF, to: &buffer)
        appendLittleEndian(0xFFFF_FFFF, to: &buffer)  // section length unknown
        appendLittleEndian(28, to: &buffer)
        appendLittleEndian(1, to: &buffer)
        appendLittleEndian(20, to: &buffer)
        appendLittleEndian(201, to: &buffer)
        appendLittleEndian(65_535, to: &buffer)
        appendLittleEndian(20, to: &buffer)
        let packets = (0..<IngestScenario.beaconCount).map { [0, 0, 0, 1] + IngestScenario.h4Event(heardAt: $0) }
        for index in 0..<count {
            let packet = packets[index % IngestScenario.beaconCount]
            let padded = (packet.count + 3) & ~3
            let timestamp = UInt64(IngestScenario.startUnixMicroseconds + Int64(index) * IngestScenario.spacingMicroseconds)
            appendLittleEndian(6, to: &buffer)
            appendLittleEndian(UInt32(32 + padded), to: &buffer)
            appendLittleEndian(0, to: &buffer)
            appendLittleEndian(UInt32(truncatingIfNeeded: timestamp >> 32), to: &buffer)
            appendLittleEndian(UInt32(truncatingIfNeeded: timestamp), to: &buffer)
            appendLittleEndian(UInt32(packet.count), to: &buffer)
            appendLittleEndian(UInt32(packet.count), to: &buffer)
            buffer += packet
            buffer += [UInt8](repeating: 0, count: padded - packet.count)
            appendLittleEndian(UInt32(32 + padded), to: &buffer)
            if buffer.count >= 1 << 20, !flush() { return false }
        }
    }
    return flush()
}

private func appendBigEndian(_ value: UInt32, to bytes: inout [UInt8]) {
    bytes += [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
}

private func appendLittleEndian(_ value: UInt32, to bytes: inout [UInt8]) {
    bytes += [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8(value >> 24)]
}
