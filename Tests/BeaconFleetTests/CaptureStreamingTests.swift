import BeaconTestKit
import BeaconCore
import ClockTestKit
import Foundation
import HCI
import HCITransports
import Testing

@testable import BeaconFleet

/// A capture is read record by record in bounded memory, and corruption anywhere but a
/// cut-off end is an error naming the record, never "the capture ended early".
@Suite("btsnoop captures, streamed")
struct CaptureStreamingTests {
    static func scanCapture() throws -> [UInt8] {
        let capture = SightingCaptureTests.CaptureFile()
        try SightingCaptureTests.writeScanCapture(to: capture.path)
        return Array(try Data(contentsOf: URL(fileURLWithPath: capture.path)))
    }

    /// The byte offset of each record of `file`, read from the record headers.
    static func recordOffsets(_ file: [UInt8]) -> [Int] {
        var offsets: [Int] = []
        var offset = BTSnoopFormat.fileHeaderLength
        while offset + BTSnoopFormat.recordHeaderLength <= file.count {
            offsets.append(offset)
            let included = file[(offset + 4)..<(offset + 8)].reduce(0) { $0 << 8 | Int($1) }
            offset += BTSnoopFormat.recordHeaderLength + included
        }
        return offsets
    }

    static func setLengths(_ file: inout [UInt8], recordAt offset: Int, to length: UInt32) {
        let bytes = withUnsafeBytes(of: length.bigEndian, Array.init)
        file.replaceSubrange(offset..<(offset + 4), with: bytes)
        file.replaceSubrange((offset + 4)..<(offset + 8), with: bytes)
    }

    /// Streams `bytes` through a pipe (written by a thread of its own) into the reader
    /// `open` uses, and collects what comes out.
    static func stream(_ bytes: [UInt8]) async throws -> (sightings: [Sighting], summary: SightingCaptureSummary.Values?) {
        let file = NSTemporaryDirectory() + "beaconctl-stream-\(UUID().uuidString).btsnoop"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        guard case .capture(let stream) = try await SightingRecording.open(path: file) else {
            throw TestFailure("not recognised as a capture")
        }
        var sightings: [Sighting] = []
        for try await sighting in stream { sightings.append(sighting) }
        return (sightings, stream.summary.values)
    }

    @Test("a corrupt record length in the middle is an error naming the record and its offset, in memory and streamed")
    func corruptLengthInTheMiddle() async throws {
        var file = try Self.scanCapture()
        let offsets = Self.recordOffsets(file)
        // Record 1 (a Command Complete of 7 bytes) said to hold 9: it swallows 2 bytes of
        // the next record's header, and its event no longer matches its length.
        Self.setLengths(&file, recordAt: offsets[1], to: 9)
        let expected = "btsnoop record 1 at byte \(offsets[1]) is invalid: its event packet says it has 6 bytes, the record holds 8 (the record length 9 is corrupt, or the packet is); the capture is damaged from there: to use what precedes it, keep its first \(offsets[1]) bytes (head -c \(offsets[1]))"
        let inMemory = try #require(throws: SightingStreamError.self) { _ = try SightingCapture(bytes: file, source: "c.btsnoop") }
        #expect(inMemory.description == "c.btsnoop: " + expected)
        let streamed = try await #require(throws: SightingStreamError.self) { _ = try await Self.stream(file) }
        #expect(streamed.description.hasSuffix(expected), "\(streamed)")
    }

    @Test("a record length beyond any HCI packet is corruption, not a cut-off end, even on the last record")
    func impossibleLength() async throws {
        var file = try Self.scanCapture()
        let offsets = Self.recordOffsets(file)
        Self.setLengths(&file, recordAt: offsets[2], to: 0x00F0_0000)
        let error = try #require(throws: SightingStreamError.self) { _ = try SightingCapture(bytes: file, source: "c") }
        #expect(error.description.contains("btsnoop record 2 at byte \(offsets[2]) is invalid: its length 15728640 is beyond any HCI packet"))
    }

    @Test("a capture cut inside its last record: what precedes it, and the truncation said, streamed too")
    func cutAtTheEnd() async throws {
        let whole = try Self.scanCapture()
        let cut = Array(whole.dropLast(24 + 6 + 20))
        let (sightings, summary) = try await Self.stream(cut)
        #expect(sightings.count == 2)
        #expect(summary?.truncation?.hasPrefix("btsnoop record 4 at byte") == true)
        #expect(summary?.recordCount == 4)
    }

    @Test("a timestamp centuries away from the first record is an error naming the record")
    func timestampJump() async throws {
        var file = try Self.scanCapture()
        let offsets = Self.recordOffsets(file)
        let far = UInt64(bitPattern: Int64.max - 5)
        file.replaceSubrange((offsets[3] + 16)..<(offsets[3] + 24), with: withUnsafeBytes(of: far.bigEndian, Array.init))
        let error = try await #require(throws: SightingStreamError.self) { _ = try await Self.stream(file) }
        #expect(error.description.contains("btsnoop record 3 at byte \(offsets[3]) is"), "\(error)")
        #expect(error.description.contains("its timestamp is corrupt"), "\(error)")
    }

    @Test("a header and then zeros: an error at the first record (H4), and bounded buffering where zeros are valid (monitor)")
    func endlessZeros() throws {
        let h4 = try #require(throws: SightingStreamError.self) {
            _ = try SightingCapture(bytes: BTSnoopWriter.fileHeader() + [UInt8](repeating: 0, count: 4096), source: "z")
        }
        #expect(h4.description == "z: btsnoop record 0 at byte 16 is invalid: it is empty; an H4 record starts with the packet indicator; the capture is damaged from there: to use what precedes it, keep its first 16 bytes (head -c 16)")

        // Linux monitor: a zero record is opcode 0 with no data, skipped; 50 MB of them fed
        // in 64 KiB chunks never make the reader hold more than a chunk and a record.
        var reader = try BTSnoopReader(prefix: BTSnoopWriter.fileHeader(datalink: .linuxMonitor))
        let chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var largest = 0
        for _ in 0..<(50 * 16) {
            reader.append(chunk)
            largest = max(largest, reader.bufferedByteCount)
            while let record = try reader.next() { Issue.record("a skipped monitor record came out: \(record)") }
        }
        #expect(largest <= 2 * chunk.count + BTSnoopFormat.maximumRecordLength, "\(largest) bytes buffered")
    }

    @Test("streaming reads what reading whole reads, for every chunking of a capture")
    func chunkingIsInvisible() throws {
        let file = try Self.scanCapture()
        let whole = try SightingCapture(bytes: file, source: "c")
        for chunkSize in [1, 3, 17, 24, 25, 4096] {
            var reader = try BTSnoopReader(prefix: Array(file.prefix(16)))
            var decoder = SightingCaptureDecoder(datalink: reader.datalink, source: "c")
            var sightings: [Sighting] = []
            var offset = 16
            while true {
                while let record = try decoder.nextRecord(from: &reader) {
                    sightings += try decoder.sightings(in: record, position: reader.lastRecordPosition)
                }
                if reader.isFinished { break }
                if offset >= file.count {
                    reader.finish()
                } else {
                    reader.append(file[offset..<min(file.count, offset + chunkSize)])
                    offset += chunkSize
                }
            }
            #expect(sightings == whole.sightings, "chunks of \(chunkSize)")
            #expect(decoder.values == whole.summary, "chunks of \(chunkSize)")
        }
    }
}
