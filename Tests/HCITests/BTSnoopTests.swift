import BeaconCore
import HCITestKit
import Foundation
import Synchronization
import Testing
@testable import HCI
@testable import HCITransports

/// Format facts checked here: Wireshark's wiretap btsnoop reader and BlueZ's
/// src/shared/btsnoop.c (magic, version 1, big-endian fields, datalinks 1001/1002/2001,
/// flags bit 0 = received, bit 1 = command/event, monitor flags = index << 16 | opcode).
@Suite struct BTSnoopTests {
    func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hci-tests-\(UUID().uuidString)-\(name)").path
    }

    @Test func fileHeaderIsByteExact() {
        // "btsnoop\0", version 1, datalink 1002 (0x3EA), all big-endian.
        #expect(BTSnoopWriter.fileHeader() == hex("62 74 73 6e 6f 6f 70 00 00 00 00 01 00 00 03 ea"))
    }

    @Test func recordIsByteExact() {
        let record = BTSnoopRecord(packet: packet("01 03 0c 00"), direction: .hostToController, unixMicroseconds: 0)
        // Lengths 4 and 4, flags 0x02 (command), no drops, the Unix epoch in btsnoop time.
        #expect(BTSnoopWriter.encode(record) == hex("00 00 00 04 00 00 00 04 00 00 00 02 00 00 00 00 00 dc dd b3 0f 2f 80 00 01 03 0c 00"))
    }

    @Test func timestampsAgreeWithBlueZsEpoch() {
        // BlueZ counts from 2000-01-01 with offset 0x00E03AB44A676000; both give the same
        // value for 2024-01-01T00:00:00Z.
        let unix: Int64 = 1_704_067_200 * 1_000_000
        let blueZ: Int64 = (1_704_067_200 - 946_684_800) * 1_000_000 + 0x00E0_3AB4_4A67_6000
        let bytes = BTSnoopWriter.encode(BTSnoopRecord(packet: packet("04 10 01 00"), direction: .controllerToHost, unixMicroseconds: unix))
        #expect(Array(bytes[16..<24]) == (0..<8).map { UInt8(truncatingIfNeeded: blueZ >> (56 - 8 * $0)) })
    }

    @Test func flagsFollowDirectionAndKind() {
        func flags(_ h4: String, _ direction: BTSnoopDirection) -> [UInt8] {
            Array(BTSnoopWriter.encode(BTSnoopRecord(packet: packet(h4), direction: direction, unixMicroseconds: 0))[8..<12])
        }
        #expect(flags("01 03 0c 00", .hostToController) == [0, 0, 0, 2])
        #expect(flags("04 10 01 00", .controllerToHost) == [0, 0, 0, 3])
        #expect(flags("02 40 00 00 00", .hostToController) == [0, 0, 0, 0])
        #expect(flags("02 40 00 00 00", .controllerToHost) == [0, 0, 0, 1])
    }

    @Test func writeThenReadRoundTrip() throws {
        let path = temporaryPath("round-trip.btsnoop")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = MicrosecondTicker(start: 1_704_067_200_000_000)
        let writer = try BTSnoopWriter(path: path, clock: clock.next)
        let packets: [(HCIPacket, BTSnoopDirection)] = [
            (packet("01 03 0c 00"), .hostToController),
            (packet("04 0e 04 01 03 0c 00"), .controllerToHost),
            (packet("04 3e 06 12 43 02 00 00 05"), .controllerToHost),
            (packet("02 40 00 05 00 01 00 ff 01 02"), .hostToController),
            (packet("05 01 00 00 00"), .controllerToHost),
        ]
        for (packet, direction) in packets {
            try writer.write(packet, direction: direction)
        }
        writer.close()

        let bytes = try #require(FileManager.default.contents(atPath: path))
        #expect(Array(bytes.prefix(16)) == BTSnoopWriter.fileHeader())
        var reader = try BTSnoopReader(contentsOf: path)
        #expect(reader.datalink == .hciUART)
        let records = try reader.readAll()
        #expect(records.map(\.packet) == packets.map(\.0))
        #expect(records.map(\.direction) == packets.map(\.1))
        #expect(records.map(\.unixMicroseconds) == (0..<5).map { 1_704_067_200_000_000 + Int64($0) })
        #expect(records.allSatisfy { !$0.isTruncated && $0.cumulativeDrops == 0 && $0.controllerIndex == nil })
    }

    @Test func writesAfterCloseFail() throws {
        let path = temporaryPath("closed.btsnoop")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try BTSnoopWriter(path: path)
        writer.close()
        writer.close()
        #expect(throws: BTSnoopError.self) { try writer.write(packet("01 03 0c 00"), direction: .hostToController) }
    }

    @Test func unwritablePathIsAClearError() {
        let error = #expect(throws: BTSnoopError.self) { try BTSnoopWriter(path: "/nonexistent-directory/capture.btsnoop") }
        #expect(error?.description.hasPrefix("cannot create capture file /nonexistent-directory/capture.btsnoop: No such file or directory") == true)
    }

    @Test func readsBumblesCapture() throws {
        // Written by Google Bumble 0.0.236's BtSnooper: Reset, its Command Complete, and a
        // received ACL packet.
        let capture = hex("""
            6274736e6f6f700000000001000003ea
            0000000400000004000000020000000000e33e7c7ad11ac6 01030c00
            0000000700000007000000030000000000e33e7c7ad11ada 040e0401030c00
            0000000a0000000a000000010000000000e33e7c7ad11add 02400005000100ff0102
            """)
        var reader = try BTSnoopReader(bytes: capture)
        let records = try reader.readAll()
        #expect(records.count == 3)
        #expect(records[0].packet == packet("01 03 0c 00"))
        #expect(records[0].direction == .hostToController)
        #expect(try HCIEvent(packet: records[1].packet) == .commandComplete(.init(answering: Reset.self)))
        #expect(records[1].direction == .controllerToHost)
        #expect(records[2].packet.type == .acl)
        #expect(records[2].direction == .controllerToHost)
        // 2026-11-21T13:34:30.709958Z.
        #expect(records[0].unixMicroseconds == 1_795_268_070_709_958)
        #expect(records[2].unixMicroseconds - records[0].unixMicroseconds == 23)
    }

    @Test func readsUnencapsulatedHCI() throws {
        var file = BTSnoopWriter.fileHeader(datalink: .hciUnencapsulated)
        file += record(flags: 0x02, data: hex("03 0c 00"))
        file += record(flags: 0x03, data: hex("0e 04 01 03 0c 00"))
        file += record(flags: 0x00, data: hex("40 00 00 00"))
        file += record(flags: 0x01, data: hex("40 00 00 00"))
        var reader = try BTSnoopReader(bytes: file)
        let records = try reader.readAll()
        #expect(records.map(\.packet.type) == [.command, .event, .acl, .acl])
        #expect(records.map(\.direction) == [.hostToController, .controllerToHost, .hostToController, .controllerToHost])
        #expect(records[0].packet == packet("01 03 0c 00"))
        #expect(records[0].originalLength == 4)
    }

    @Test func readsLinuxMonitorCaptures() throws {
        var file = BTSnoopWriter.fileHeader(datalink: .linuxMonitor)
        // New Index (opcode 0) for hci1: not a packet, skipped.
        file += record(flags: 0x0001_0000, data: hex("00 01 00 17 de 10 4c da 68 63 69 31 00 00 00 00"))
        file += record(flags: 0x0001_0002, data: hex("03 0c 00"))
        file += record(flags: 0x0001_0003, data: hex("0e 04 01 03 0c 00"))
        file += record(flags: 0x0001_000C, data: Array("note".utf8))  // system note: skipped
        file += record(flags: 0x0001_0013, data: hex("01 00 00 00"))  // ISO received
        var reader = try BTSnoopReader(bytes: file)
        let records = try reader.readAll()
        #expect(records.map(\.packet.type) == [.command, .event, .iso])
        #expect(records.map(\.direction) == [.hostToController, .controllerToHost, .controllerToHost])
        #expect(records.allSatisfy { $0.controllerIndex == 1 })
    }

    @Test func truncatedCapturedPacketIsMarked() throws {
        var file = BTSnoopWriter.fileHeader()
        file += record(originalLength: 40, flags: 0x03, data: hex("04 3e 02 02 00"))
        var reader = try BTSnoopReader(bytes: file)
        let record = try #require(try reader.next())
        #expect(record.isTruncated)
        #expect(record.originalLength == 40)
    }

    // MARK: Hostile input

    @Test func badHeaders() {
        #expect(throws: BTSnoopError.notBTSnoop) { try BTSnoopReader(bytes: Array("pcap file here!!".utf8)) }
        #expect(throws: BTSnoopError.notBTSnoop) { try BTSnoopReader(bytes: [0x00]) }
        #expect(throws: BTSnoopError.truncatedFileHeader(length: 0)) { try BTSnoopReader(bytes: []) }
        #expect(throws: BTSnoopError.truncatedFileHeader(length: 10)) { try BTSnoopReader(bytes: Array(BTSnoopWriter.fileHeader().prefix(10))) }
        var version2 = BTSnoopWriter.fileHeader()
        version2[11] = 2
        #expect(throws: BTSnoopError.unsupportedVersion(2)) { try BTSnoopReader(bytes: version2) }
        #expect(throws: BTSnoopError.unsupportedDatalink(1003)) {
            try BTSnoopReader(bytes: BTSnoopFormat.magic + [0, 0, 0, 1, 0, 0, 0x03, 0xEB])
        }
    }

    @Test func badRecords() throws {
        let header = BTSnoopWriter.fileHeader()
        func firstError(_ bytes: [UInt8]) -> BTSnoopError? {
            do {
                var reader = try BTSnoopReader(bytes: header + bytes)
                _ = try reader.readAll()
                return nil
            } catch {
                return error
            }
        }
        let good = record(flags: 2, data: hex("01 03 0c 00"))
        #expect(firstError(good) == nil)
        #expect(firstError(Array(good.prefix(20))) == .truncatedRecord(index: 0, offset: 16))
        #expect(firstError(good + Array(good.dropLast())) == .truncatedRecord(index: 1, offset: 16 + 28))
        #expect(firstError(record(originalLength: 2, flags: 2, data: hex("01 03 0c 00")))
                == .invalidRecord(index: 0, offset: 16, reason: "it holds 4 bytes of a 2-byte packet"))
        #expect(firstError(record(flags: 2, data: [])) == .invalidRecord(index: 0, offset: 16, reason: "it is empty; an H4 record starts with the packet indicator"))
        #expect(firstError(record(flags: 2, data: hex("99 00"))) == .invalidRecord(index: 0, offset: 16, reason: "unknown H4 packet indicator 0x99"))
        // An included length of 4 GiB: corruption (no HCI packet is that long), not an
        // allocation and not "the capture ended early".
        var huge = good
        huge.replaceSubrange(0..<8, with: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(firstError(huge) == .invalidRecord(
            index: 0, offset: 16,
            reason: "its length 4294967295 is beyond any HCI packet (at most 65540 bytes)"))
        // A record whose packet states another length than the record holds.
        #expect(firstError(record(flags: 3, data: hex("04 0e 05 01 03 0c 00"))) == .invalidRecord(
            index: 0, offset: 16,
            reason: "its event packet says it has 7 bytes, the record holds 6 (the record length 7 is corrupt, or the packet is)"))
    }

    @Test func randomCapturesNeverTrap() {
        var generator = SeededGenerator(seed: 0xB75)
        let header = BTSnoopWriter.fileHeader()
        for _ in 0..<2000 {
            let length = Int.random(in: 0...80, using: &generator)
            var body = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Small lengths keep many records parseable so the sweep reaches the decoders.
            if body.count >= 8 {
                body[0...6] = [0, 0, 0, 0, 0, 0, 0]
                body[4...6] = [0, 0, 0]
            }
            if var reader = try? BTSnoopReader(bytes: header + body) {
                _ = try? reader.readAll()
            }
            _ = try? BTSnoopReader(bytes: body)
        }
    }

    @Test func missingFileIsAClearError() {
        let error = #expect(throws: BTSnoopError.self) { try BTSnoopReader(contentsOf: "/nonexistent/capture.btsnoop") }
        #expect(error?.description.hasPrefix("cannot open capture file /nonexistent/capture.btsnoop: No such file or directory") == true)
    }

    /// A record of the given datalink-specific data, lengths and flags big-endian.
    func record(originalLength: UInt32? = nil, flags: UInt32, data: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(originalLength ?? UInt32(data.count))
        bytes.appendBigEndian(UInt32(data.count))
        bytes.appendBigEndian(flags)
        bytes.appendBigEndian(UInt32(0))
        bytes.appendBigEndian(BTSnoopFormat.unixEpochOffset)
        return bytes + data
    }
}

/// Microseconds for a btsnoop writer: one more at each reading.
final class MicrosecondTicker: Sendable {
    private let value: Mutex<Int64>

    init(start: Int64) {
        value = Mutex(start)
    }

    var next: @Sendable () -> Int64 {
        { [self] in value.withLock { current in defer { current += 1 }; return current } }
    }
}
