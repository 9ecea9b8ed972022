import BeaconCore
import BeaconTestKit
import ClockTestKit
import Foundation
import HCI
import Testing

@testable import BeaconFleet

/// pcap and pcapng captures: every Bluetooth link type read, the format told by content,
/// and damage named by record and offset, in memory and streamed alike.
@Suite("pcap and pcapng captures to sightings")
struct PcapCaptureTests {
    static let start: UInt32 = 1_700_000_000

    /// `bytes` written to a scratch file and read the way `verify --input` does.
    static func stream(_ bytes: [UInt8]) async throws -> (sightings: [Sighting], summary: SightingCaptureSummary.Values?) {
        let path = NSTemporaryDirectory() + "beaconctl-pcap-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard case .capture(let stream) = try await SightingRecording.open(path: path) else {
            throw TestFailure("not recognised as a capture")
        }
        var sightings: [Sighting] = []
        for try await sighting in stream { sightings.append(sighting) }
        return (sightings, stream.summary.values)
    }

    /// The same bytes in memory and streamed: the same sightings and summary, returned.
    static func readBothWays(_ bytes: [UInt8], source: String = "c.pcap") async throws -> SightingCapture {
        let whole = try SightingCapture(bytes: bytes, source: source)
        let streamed = try await stream(bytes)
        #expect(streamed.sightings.map(\.identity) == whole.sightings.map(\.identity))
        #expect(streamed.sightings.map(\.time) == whole.sightings.map(\.time))
        #expect(streamed.summary?.counts == whole.summary.counts)
        return whole
    }

    @Test("H4 (187) and H4 with a direction (201), both byte orders, micro- and nanoseconds")
    func h4LinkTypes() async throws {
        let event = try CapturePackets.reportEvent("C4:5B:BE:00:00:01", rssi: -61)
        let command: [UInt8] = [0x01, 0x0C, 0x20, 0x02, 0x01, 0x00]  // LE Set Scan Enable
        for bigEndian in [false, true] {
            for nanoseconds in [false, true] {
                let unit: UInt32 = nanoseconds ? 1000 : 1
                let h4 = PcapFile.make(linkType: 187, bigEndian: bigEndian, nanoseconds: nanoseconds, packets: [
                    (Self.start, 0, command), (Self.start, 250_000 * unit, [0x04] + event), (Self.start + 2, 0, [0x04] + event),
                ])
                let capture = try await Self.readBothWays(h4)
                #expect(capture.sightings.map(\.time) == [0.25, 2])
                #expect(capture.sightings.allSatisfy { $0.clock == .elapsed })
                #expect(capture.sightings.first?.address?.description == "C4:5B:BE:00:00:01")
                #expect(capture.sightings.first?.rssi == -61)
                #expect(capture.sightings.first?.identity == BeaconIdentity(uuid: testUUID, major: 1, minor: 2))
                #expect(capture.sightings.first?.receiver == "c.pcap")
                #expect(capture.recordCount == 3)
                #expect(capture.startUnixMicroseconds == Int64(Self.start) * 1_000_000)
                #expect(capture.summary.format == "pcap")
                #expect(capture.datalink == nil)

                // 201: a 4-octet direction first; events are read whichever way it points.
                let withDirection = PcapFile.make(linkType: 201, bigEndian: bigEndian, nanoseconds: nanoseconds, packets: [
                    (Self.start, 0, [0, 0, 0, 0] + command), (Self.start, 0, [0, 0, 0, 1, 0x04] + event),
                    (Self.start, 1, [0, 0, 0, 0, 0x04] + event),
                ])
                #expect(try await Self.readBothWays(withDirection).sightings.count == 2)
            }
        }
    }

    @Test("Linux monitor (254): each adapter is its own receiver; only events are read")
    func linuxMonitor() async throws {
        let event = try CapturePackets.reportEvent("C4:5B:BE:00:00:01", rssi: -50)
        let file = PcapFile.make(linkType: 254, packets: [
            (Self.start, 0, [0, 0, 0, 2, 0x0C, 0x20, 0x02, 0x01, 0x00]),  // a command on hci0
            (Self.start, 0, [0, 0, 0, 3] + event),
            (Self.start + 1, 0, [0, 1, 0, 3] + event),
            (Self.start + 1, 0, [0, 1, 0, 3]),  // an empty event: undecodable, counted
        ])
        let capture = try await Self.readBothWays(file, source: "btmon.pcap")
        #expect(capture.sightings.map(\.receiver) == ["btmon.pcap hci0", "btmon.pcap hci1"])
        #expect(capture.sightings.map(\.time) == [0, 1])
        #expect(capture.counts.malformedEvents == 1)
    }

    @Test("LE link layer (251, 256): advertising PDUs with AdvA and AdvData are reports; others are not")
    func linkLayer() async throws {
        let nonconnectable = try CapturePackets.linkLayer(type: 2, address: "C4:5B:BE:00:00:01")
        let scanResponse = try CapturePackets.linkLayer(type: 4, address: "C4:5B:BE:00:00:02", random: true)
        let other = try CapturePackets.linkLayer(type: 0, address: "C4:5B:BE:00:00:03", data: bytes("02 01 06"))
        var dataChannel = nonconnectable
        dataChannel[0] = 0x01  // another access address: a connection's packet
        let scanRequest = try CapturePackets.linkLayer(type: 3, address: "C4:5B:BE:00:00:04", data: [])
        var lying = nonconnectable
        lying[5] = 200  // a length beyond the packet
        let file = PcapFile.make(linkType: 251, packets: [
            (Self.start, 0, nonconnectable), (Self.start, 100_000, scanResponse), (Self.start, 200_000, other),
            (Self.start, 300_000, dataChannel), (Self.start, 400_000, scanRequest), (Self.start, 500_000, lying),
        ])
        let capture = try await Self.readBothWays(file, source: "air.pcap")
        #expect(capture.sightings.map(\.address?.description) == ["C4:5B:BE:00:00:01", "C4:5B:BE:00:00:02"])
        #expect(capture.sightings.map(\.addressIsRandom) == [false, true])
        #expect(capture.sightings.map(\.rssi) == [nil, nil])
        #expect(capture.counts.reports == 4)
        #expect(capture.counts.iBeaconReports == 2)
        #expect(capture.counts.otherReports == 1)
        #expect(capture.counts.malformedData == 1)

        // 256: RSSI from the radio header when its flag says it is valid; a packet whose
        // CRC was checked and found wrong, or on a coded PHY, is not read.
        let radio = PcapFile.make(linkType: 256, packets: [
            (Self.start, 0, CapturePackets.withRadioHeader(nonconnectable, signal: -48, flags: 0x0C03)),
            (Self.start, 1, CapturePackets.withRadioHeader(nonconnectable, signal: -49, flags: 0x0001)),
            (Self.start, 2, CapturePackets.withRadioHeader(nonconnectable, signal: -50, flags: 0x0403)),
            (Self.start, 3, CapturePackets.withRadioHeader(nonconnectable, signal: -51, flags: 0x0083)),
        ])
        let sniffed = try await Self.readBothWays(radio)
        #expect(sniffed.sightings.map(\.rssi) == [-48, nil])
    }

    @Test("nRF Sniffer (272): every protocol version; its RSSI; bad CRC, coded PHY, notices skipped; lying headers counted")
    func nordicSniffer() async throws {
        let beacon = try CapturePackets.linkLayer(type: 2, address: "C4:5B:BE:00:00:01")
        let random = try CapturePackets.linkLayer(type: 4, address: "C4:5B:BE:00:00:02", random: true)
        var dataChannel = beacon
        dataChannel[0] = 0x01  // another access address: a connection's packet
        var lyingLength = CapturePackets.nordic(beacon, version: 2, rssiMagnitude: 50)
        lyingLength[1] &+= 1  // a payload one octet longer than the record
        var shortEvent = CapturePackets.nordic(beacon, version: 3, rssiMagnitude: 50)
        shortEvent[7] = 9  // an event packet too short for its own fields
        let file = PcapFile.make(linkType: 272, packets: [
            (Self.start, 0, CapturePackets.nordic(beacon, version: 0, rssiMagnitude: 60)),
            (Self.start + 1, 0, CapturePackets.nordic(beacon, version: 1, rssiMagnitude: 61)),
            (Self.start + 2, 0, CapturePackets.nordic(beacon, version: 2, rssiMagnitude: 62)),
            (Self.start + 3, 0, CapturePackets.nordic(random, version: 3, rssiMagnitude: 63)),
            (Self.start + 4, 0, CapturePackets.nordic(beacon, version: 3, rssiMagnitude: 64, flags: 0x00)),  // CRC wrong
            (Self.start + 5, 0, CapturePackets.nordic(beacon, version: 3, rssiMagnitude: 65, flags: 0x21)),  // coded PHY
            (Self.start + 6, 0, CapturePackets.nordic(beacon, version: 3, rssiMagnitude: 66, packetID: 0x09)),  // a notice
            (Self.start + 7, 0, CapturePackets.nordic(dataChannel, version: 3, rssiMagnitude: 67, packetID: 0x06)),
            (Self.start + 8, 0, CapturePackets.nordic(beacon, version: 3, rssiMagnitude: 200)),  // no RSSI
            (Self.start + 9, 0, CapturePackets.nordic(beacon, version: 3, rssiMagnitude: 68, flags: 0x11)),  // 2M PHY
            (Self.start + 10, 0, lyingLength), (Self.start + 11, 0, shortEvent), (Self.start + 12, 0, [0x00, 0x01]),
        ])
        let capture = try await Self.readBothWays(file, source: "nrf.pcap")
        #expect(capture.sightings.map(\.address?.description) == [
            "C4:5B:BE:00:00:01", "C4:5B:BE:00:00:01", "C4:5B:BE:00:00:01", "C4:5B:BE:00:00:02", "C4:5B:BE:00:00:01",
            "C4:5B:BE:00:00:01",
        ])
        #expect(capture.sightings.map(\.rssi) == [-60, -61, -62, -63, nil, -68])
        #expect(capture.sightings.map(\.addressIsRandom) == [false, false, false, true, false, false])
        #expect(capture.sightings.map(\.time) == [0, 1, 2, 3, 8, 9])
        #expect(capture.counts.iBeaconReports == 6)
        #expect(capture.counts.malformedEvents == 3)
    }

    @Test("pcapng: sections of either byte order, several interfaces, every packet block, unknown blocks skipped")
    func pcapng() async throws {
        let event = try CapturePackets.reportEvent("C4:5B:BE:00:00:01", rssi: -60)
        let air = try CapturePackets.linkLayer(address: "C4:5B:BE:00:00:09")
        let microseconds = UInt64(Self.start) * 1_000_000
        var file = PcapngBlock.section()
        file += PcapngBlock.interface(linkType: 201)
        file += PcapngBlock.unknown()
        // Nanosecond resolution (if_tsresol 9), and an offset of 10 s (if_tsoffset).
        file += PcapngBlock.interface(linkType: 251, resolution: 9, offset: 10)
        file += PcapngBlock.enhanced(interface: 0, timestamp: microseconds, data: [0, 0, 0, 1, 0x04] + event)
        file += PcapngBlock.enhanced(interface: 1, timestamp: (microseconds - 9_000_000) * 1000, data: air)  // t = 1 s
        file += PcapngBlock.simple(data: [0, 0, 0, 1, 0x04] + event)  // no time: that of the packet before
        // A second section, big-endian: interfaces are counted across the file.
        file += PcapngBlock.section(bigEndian: true)
        file += PcapngBlock.interface(linkType: 187, bigEndian: true)
        file += PcapngBlock.obsolete(interface: 0, timestamp: microseconds + 3_000_000, data: [0x04] + event, bigEndian: true)
        file += PcapngBlock.unknown(bigEndian: true)

        let capture = try await Self.readBothWays(file, source: "c.pcapng")
        #expect(capture.sightings.map(\.time) == [0, 1, 1, 3])
        #expect(capture.sightings.map(\.receiver) == ["c.pcapng", "c.pcapng interface 1", "c.pcapng", "c.pcapng interface 2"])
        #expect(capture.sightings.map(\.address?.description) == ["C4:5B:BE:00:00:01", "C4:5B:BE:00:00:09", "C4:5B:BE:00:00:01", "C4:5B:BE:00:00:01"])
        #expect(capture.recordCount == 4)
        #expect(capture.summary.format == "pcapng")
    }

    @Test("a capture written by Bumble's PcapSnooper")
    func bumbleCapture() async throws {
        let url = try #require(Bundle.module.url(forResource: "bumble-ibeacon", withExtension: "pcap", subdirectory: "Fixtures"))
        let capture = try await Self.readBothWays(Array(try Data(contentsOf: url)), source: "bumble.pcap")
        let uuid = try ProximityUUID(parsing: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")
        #expect(capture.sightings.count >= 5)
        for sighting in capture.sightings {
            #expect(sighting.identity == BeaconIdentity(uuid: uuid, major: 7, minor: 42))
            #expect(sighting.advertisement.measuredPower == -59)
            #expect(sighting.address?.description == "C4:5B:BE:12:34:56")
            #expect(!sighting.addressIsRandom)
            #expect(sighting.receiver == "bumble.pcap")
        }
        #expect(capture.sightings.map(\.time) == capture.sightings.map(\.time).sorted())
        #expect(capture.counts.malformedEvents == 0)
        #expect(capture.truncation == nil)
    }

    @Test("a pcapng written by Wireshark's tshark (its options, its section header) gives what the pcap it was converted from gives")
    func tsharkCapture() async throws {
        let pcapURL = try #require(Bundle.module.url(forResource: "bumble-ibeacon", withExtension: "pcap", subdirectory: "Fixtures"))
        let pcapngURL = try #require(Bundle.module.url(forResource: "tshark-ibeacon", withExtension: "pcapng", subdirectory: "Fixtures"))
        let original = try await Self.readBothWays(Array(try Data(contentsOf: pcapURL)), source: "capture")
        let converted = try await Self.readBothWays(Array(try Data(contentsOf: pcapngURL)), source: "capture")
        #expect(!converted.sightings.isEmpty)
        #expect(converted.sightings == original.sightings, "the same receptions at the same times")
        #expect(converted.counts.malformedEvents == 0)
        #expect(converted.truncation == nil)
    }

    // MARK: Damage

    /// The error reading `bytes` gives, in memory and streamed (the same one).
    static func failure(_ bytes: [UInt8], source: String = "c.pcap") async throws -> String {
        let inMemory = try #require(throws: SightingStreamError.self) { _ = try SightingCapture(bytes: bytes, source: source) }
        await #expect(throws: SightingStreamError.self) { _ = try await Self.stream(bytes) }
        return inMemory.reason
    }

    @Test("a record length beyond any packet is an error naming the record and its offset, before any wait or allocation")
    func hostileLength() async throws {
        let event = try CapturePackets.reportEvent("C4:5B:BE:00:00:01", rssi: -60)
        var file = PcapFile.make(linkType: 187, packets: [(Self.start, 0, [0x04] + event), (Self.start, 1, [0x04] + event)])
        let second = 24 + 16 + 1 + event.count
        file.replaceSubrange((second + 8)..<(second + 12), with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(try await Self.failure(file) == "pcap record 1 at byte \(second) is invalid: its length 4294967295 is beyond any packet (at most 262144 bytes); the capture is damaged from there: to use what precedes it, keep its first \(second) bytes (head -c \(second))")
        // The reader never waits for more than it may hold.
        var reader = PcapReader()
        reader.append(file.prefix(second + 16))
        #expect(reader.bytesNeeded == 0 || reader.bytesNeeded <= PcapReader.maximumRecordLength + 16)
    }

    @Test("pcapng damage: lengths, trailing length, undeclared interface, byte-order magic, version")
    func pcapngDamage() async throws {
        let event = try CapturePackets.reportEvent("C4:5B:BE:00:00:01", rssi: -60)
        let head = PcapngBlock.section() + PcapngBlock.interface(linkType: 201)
        let packet = PcapngBlock.enhanced(interface: 0, timestamp: 1, data: [0, 0, 0, 1, 0x04] + event)
        let offset = head.count
        let tail = "the capture is damaged from there: to use what precedes it, keep its first \(offset) bytes (head -c \(offset))"

        var odd = head + packet
        odd[offset + 4] = odd[offset + 4] &+ 2
        #expect(try await Self.failure(odd) == "pcapng block 2 at byte \(offset) is invalid: its total length \(packet.count + 2) is not a multiple of 4 of at least 12; \(tail)")

        var trailing = head + packet
        trailing[trailing.count - 4] = 0
        #expect(try await Self.failure(trailing).hasPrefix("pcapng block 2 at byte \(offset) is invalid: its trailing total length"))

        let undeclared = head + PcapngBlock.enhanced(interface: 3, timestamp: 1, data: [0x04])
        #expect(try await Self.failure(undeclared) == "pcapng block 2 at byte \(offset) is invalid: it names interface 3; the section declared 1; \(tail)")

        var magic = head + packet
        magic[8] = 0x00
        #expect(try await Self.failure(magic).hasPrefix("pcapng block 0 at byte 0 is invalid: its byte-order magic is"))

        var version = head
        version[12] = 2
        #expect(try await Self.failure(version) == "pcapng version 2.0 is not supported (only 1.x)")

        var huge = head + packet
        huge.replaceSubrange((offset + 4)..<(offset + 8), with: [0x00, 0x00, 0x00, 0x7F])
        #expect(try await Self.failure(huge).hasPrefix("pcapng block 2 at byte \(offset) is invalid: its total length 2130706432 is beyond any block"))
    }

    @Test("a capture cut inside its last record is read up to it, with a note; a cut header is an error")
    func truncation() async throws {
        let event = try CapturePackets.reportEvent("C4:5B:BE:00:00:01", rssi: -60)
        let file = PcapFile.make(linkType: 187, packets: [(Self.start, 0, [0x04] + event), (Self.start, 1, [0x04] + event)])
        let cut = Array(file.dropLast(5))
        let capture = try await Self.readBothWays(cut)
        #expect(capture.sightings.count == 1)
        #expect(capture.truncation == "pcap record 1 at byte \(24 + 17 + event.count) is cut short: the capture ended while it was written")
        let streamed = try await Self.stream(cut)
        #expect(streamed.summary?.truncation == capture.truncation)

        #expect(try await Self.failure(Array(file.prefix(10))) == "pcap file is 10 bytes long, shorter than its header")

        let pcapng = PcapngBlock.section() + PcapngBlock.interface(linkType: 201)
            + PcapngBlock.enhanced(interface: 0, timestamp: 1, data: [0, 0, 0, 1, 0x04] + event)
        let cutBlock = try await Self.readBothWays(Array(pcapng.dropLast(3)))
        #expect(cutBlock.sightings.isEmpty)
        #expect(cutBlock.truncation?.hasPrefix("pcapng block 2 at byte") == true)
    }

    @Test("a capture of another link type is an error, not a silent air")
    func notBluetooth() async throws {
        let ethernet = PcapFile.make(linkType: 1, packets: [(Self.start, 0, [UInt8](repeating: 0xAB, count: 60))])
        #expect(try await Self.failure(ethernet) == "this pcap capture holds no Bluetooth packets (its link type is 1 (Ethernet)); readable are 187 and 201 (HCI H4), 254 (Linux monitor), 251 and 256 (LE link layer), 272 (nRF Sniffer)")
        // Empty of packets, it is just empty.
        #expect(try await Self.readBothWays(PcapFile.make(linkType: 1, packets: [])).sightings.isEmpty)
    }

    @Test("a capture whose only record is not a Bluetooth packet is an error, not a silent air")
    func onlyUndecodable() async throws {
        // 5 000 zero bytes: longer than the file's snapshot length, and 0x00 is no H4 indicator.
        for linkType: UInt32 in [187, 201] {
            let zeros = PcapFile.make(linkType: linkType, packets: [(Self.start, 0, [UInt8](repeating: 0, count: 5000))])
            let reason = try await Self.failure(zeros)
            #expect(reason == "this pcap capture holds no Bluetooth packet that can be decoded (1 record; the first: pcap record 0 at byte 24: its H4 packet indicator is 0x00, not an HCI packet type); check it with Wireshark, or record it again")
        }
        let empty = PcapFile.make(linkType: 254, packets: [(Self.start, 0, [0, 0])])
        #expect(try await Self.failure(empty).contains("2 bytes, too short for the Linux monitor header (4 bytes)"))
    }

    @Test("undecodable records beside good ones are counted and named, and the good ones read")
    func someUndecodable() async throws {
        let event = try CapturePackets.reportEvent("C4:5B:BE:00:00:01", rssi: -60)
        let file = PcapFile.make(linkType: 187, packets: [
            (Self.start, 0, [0x04] + event), (Self.start, 1, [UInt8](repeating: 0, count: 5000)), (Self.start, 2, [0x04] + event),
            (Self.start, 3, [0x04, 0x3E, 0x05, 0x02]),  // an advertising report event whose length lies
        ])
        let capture = try await Self.readBothWays(file)
        #expect(capture.sightings.count == 2)
        #expect(capture.summary.undecodableRecords == 2)
        let second = 24 + 16 + 1 + event.count
        #expect(capture.summary.firstUndecodableRecord == "pcap record 1 at byte \(second): its H4 packet indicator is 0x00, not an HCI packet type")
        #expect(capture.summary.undecodableWarning == "2 of the 4 records of this pcap capture could not be decoded and were skipped (the first: pcap record 1 at byte \(second): its H4 packet indicator is 0x00, not an HCI packet type); what was not decoded was not judged: check the capture with Wireshark or btmon -r, or record it again")
        // A whole capture has nothing to warn of.
        let clean = PcapFile.make(linkType: 187, packets: [(Self.start, 0, [0x04] + event)])
        #expect(try await Self.readBothWays(clean).summary.undecodableWarning == nil)
    }

    @Test("fed in chunks of any size, the reader gives what it gives whole, holding at most a chunk and a record")
    func chunked() throws {
        let event = try CapturePackets.reportEvent("C4:5B:BE:00:00:01", rssi: -60)
        var file = PcapngBlock.section() + PcapngBlock.interface(linkType: 201) + PcapngBlock.unknown()
        for index in 0..<50 {
            file += PcapngBlock.enhanced(interface: 0, timestamp: UInt64(index) * 1000, data: [0, 0, 0, 1, 0x04] + event)
        }
        let whole = try SightingCapture(bytes: file, source: "c")
        for chunkSize in [1, 3, 7, 64, 1000] {
            var reader = PcapReader()
            var decoder = SightingCaptureDecoder(pcapFormat: .pcapng, source: "c")
            var sightings: [Sighting] = []
            var offset = 0
            while true {
                while let packet = try decoder.nextRecord(from: &reader) {
                    try decoder.appendSightings(in: packet, position: reader.lastRecordPosition, to: &sightings)
                }
                if reader.isFinished { break }
                #expect(reader.bufferedByteCount <= 64 * 1024 + PcapReader.maximumBlockLength + chunkSize)
                if offset >= file.count {
                    reader.finish()
                } else {
                    reader.append(file[offset..<min(file.count, offset + chunkSize)])
                    offset += chunkSize
                }
            }
            #expect(sightings == whole.sightings, "chunks of \(chunkSize)")
        }
    }

    // MARK: Telling formats apart

    @Test("a file that is no sighting format is named by its first bytes; text is left to the JSON-lines reader")
    func sniffing() async throws {
        func open(_ bytes: [UInt8]) async throws(SightingStreamError) -> SightingRecording {
            let path = NSTemporaryDirectory() + "beaconctl-sniff-\(UUID().uuidString)"
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            defer { try? FileManager.default.removeItem(atPath: path) }
            return try await SightingRecording.open(path: path)
        }
        let zip = try await #require(throws: SightingStreamError.self) { _ = try await open([0x50, 0x4B, 0x03, 0x04, 0x14, 0, 0, 0, 8, 0]) }
        #expect(zip.reason == "not a sighting file: starts with bytes 50 4b 03 04 (a zip archive?); expected JSON lines, btsnoop, pcap or pcapng")
        let gzip = try await #require(throws: SightingStreamError.self) { _ = try await open([0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 3]) }
        #expect(gzip.reason == "not a sighting file: starts with bytes 1f 8b 08 00 (gzip-compressed: decompress it first?); expected JSON lines, btsnoop, pcap or pcapng")
        let binary = try await #require(throws: SightingStreamError.self) { _ = try await open([0x00, 0x01, 0x02]) }
        #expect(binary.reason == "not a sighting file: starts with bytes 00 01 02; expected JSON lines, btsnoop, pcap or pcapng")
        for text in ["hello\n", "", "\n\n", "{\"uuid\":"] {
            guard case .jsonLines = try await open(Array(text.utf8)) else {
                Issue.record("\(text.debugDescription) was not read as JSON lines")
                continue
            }
        }
        guard case .capture = try await open(PcapFile.make(linkType: 201, bigEndian: true, packets: [])) else {
            Issue.record("a big-endian pcap was not recognised")
            return
        }
    }
}
