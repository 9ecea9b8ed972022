import Testing

@testable import BeaconCore

/// The framing loop on a toy format: a file header `HD`, then records of `length u8 | data`,
/// where a record of length 0 is a note that holds nothing and length 0xFF is corrupt.
@Suite("FramingReader")
struct FramingReaderTests {
    struct ToyFailure: Error, Equatable {
        var what: String
        var index: Int
        var offset: Int
    }

    struct ToyDecoder: RecordDecoder {
        var headerRead = false

        mutating func decode(_ bytes: [UInt8], from start: Int, position: RecordPosition) throws(ToyFailure) -> DecodingStep<[UInt8]> {
            let available = bytes.count - start
            if !headerRead {
                guard available >= 2 else { return .needMore(total: 2) }
                guard bytes[start] == 0x48, bytes[start + 1] == 0x44 else { throw ToyFailure(what: "header", index: 0, offset: 0) }
                headerRead = true
                return .skip(consumed: 2, counted: false)
            }
            guard available >= 1 else { return .needMore(total: 1) }
            let length = Int(bytes[start])
            guard length != 0xFF else { throw ToyFailure(what: "corrupt", index: position.index, offset: position.offset) }
            guard available >= 1 + length else { return .needMore(total: 1 + length) }
            guard length > 0 else { return .skip(consumed: 1, counted: true) }
            return .record(Array(bytes[(start + 1)..<(start + 1 + length)]), consumed: 1 + length)
        }

        func decodeLast(_ bytes: [UInt8], from start: Int, position: RecordPosition) throws(ToyFailure) -> [UInt8]? {
            let remaining = bytes.count - start
            guard headerRead else { throw ToyFailure(what: "no header", index: 0, offset: position.offset + remaining) }
            guard remaining == 0 else { throw ToyFailure(what: "truncated", index: position.index, offset: position.offset) }
            return nil
        }
    }

    static let input: [UInt8] = [0x48, 0x44, 2, 0xA1, 0xA2, 0, 1, 0xB1, 3, 0xC1, 0xC2, 0xC3]

    /// Every record with its position, fed `chunk` bytes at a time.
    static func read(_ input: [UInt8], chunk: Int) -> (records: [[UInt8]], positions: [[Int]], failure: ToyFailure?) {
        var reader = FramingReader(decoder: ToyDecoder())
        var records: [[UInt8]] = []
        var positions: [[Int]] = []
        var fed = 0
        do {
            while true {
                while let record = try reader.next() {
                    records.append(record)
                    positions.append([reader.lastRecordPosition.index, reader.lastRecordPosition.offset])
                }
                if reader.isFinished { return (records, positions, nil) }
                #expect(reader.bytesNeeded > 0)
                if fed >= input.count {
                    reader.finish()
                } else {
                    reader.append(input[fed..<min(input.count, fed + chunk)])
                    fed += chunk
                }
            }
        } catch {
            return (records, positions, error)
        }
    }

    @Test("records come out whole and numbered whatever the chunks; a note counts but is not handed out; the header neither")
    func chunks() {
        for chunk in 1...Self.input.count {
            let read = Self.read(Self.input, chunk: chunk)
            #expect(read.records == [[0xA1, 0xA2], [0xB1], [0xC1, 0xC2, 0xC3]])
            #expect(read.positions == [[0, 2], [2, 6], [3, 8]])
            #expect(read.failure == nil)
        }
    }

    @Test("a tail cut short is the decoder's failure, at the record's position, only once the input ended")
    func truncatedTail() {
        let read = Self.read(Array(Self.input.dropLast()), chunk: 4)
        #expect(read.records.count == 2)
        #expect(read.failure == ToyFailure(what: "truncated", index: 3, offset: 8))
        #expect(Self.read([0x48], chunk: 1).failure == ToyFailure(what: "no header", index: 0, offset: 1))
        #expect(Self.read([], chunk: 1).failure == ToyFailure(what: "no header", index: 0, offset: 0))
    }

    @Test("corruption is thrown where the decoder finds it, without waiting for the rest")
    func corrupt() {
        var reader = FramingReader(decoder: ToyDecoder())
        reader.append([0x48, 0x44, 1, 0xA1, 0xFF])
        #expect(throws: Never.self) { _ = try reader.next() }
        #expect(reader.bytesNeeded == 0)
        #expect(throws: ToyFailure(what: "corrupt", index: 1, offset: 4)) { _ = try reader.next() }
    }

    @Test("how many bytes the next step needs, without moving the reader")
    func bytesNeeded() throws {
        var reader = FramingReader(decoder: ToyDecoder())
        #expect(reader.bytesNeeded == 2)
        reader.append([0x48, 0x44, 5, 1])
        #expect(reader.bytesNeeded == 0)
        #expect(try reader.next() == nil)
        #expect(reader.bytesNeeded == 4)
        reader.append([2, 3, 4, 5])
        #expect(try reader.next() == [1, 2, 3, 4, 5])
        #expect(reader.lastRecordPosition.index == 0 && reader.lastRecordPosition.offset == 2)
    }

    @Test("memory stays one record plus one chunk, whatever the input's length")
    func bounded() throws {
        var reader = FramingReader(decoder: ToyDecoder())
        reader.append([0x48, 0x44])
        let record: [UInt8] = [200] + [UInt8](repeating: 7, count: 200)
        var count = 0
        for _ in 0..<2_000 {
            reader.append(record)
            while try reader.next() != nil { count += 1 }
            #expect(reader.bufferedByteCount <= 64 * 1024 + 2 * record.count)
        }
        reader.finish()
        #expect(try reader.next() == nil)
        #expect(count == 2_000)
    }
}
