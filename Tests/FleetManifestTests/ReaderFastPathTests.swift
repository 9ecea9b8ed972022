import Testing

@testable import FleetManifest
import YAMLDocument

/// The shortcuts the loader takes on its hot path answer exactly what the plain
/// definitions answer: key lookup, the control-character scan and the duplicate finder.
@Suite("Reader fast paths")
struct ReaderFastPathTests {
    private func field(_ text: String) -> ManifestField? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { ManifestField(key: $0) }
    }

    @Test("every key is found from its bytes; near misses and other texts are not keys")
    func keyLookup() {
        for known in ManifestField.allCases {
            #expect(field(known.key) == known)
            #expect(field(known.key + "s") == nil)
            #expect(field(String(known.key.dropLast())) == nil)
            #expect(field(known.key.uppercased()) == nil)
        }
        for other in ["", "x", "ID", "ids", "minorx", "notify_on_entrx", "colour", "name ", "über"] {
            #expect(field(other) == nil, "\(other)")
        }
    }

    /// The scan as defined: the first byte below 0x20, 0x7F, or a C1 control (C2 80…C2 9F).
    private func slowFirst(_ bytes: [UInt8]) -> Unicode.Scalar? {
        for (index, byte) in bytes.enumerated() {
            if byte < 0x20 || byte == 0x7F { return Unicode.Scalar(byte) }
            if byte == 0xC2, index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) {
                return Unicode.Scalar(bytes[index + 1])
            }
        }
        return nil
    }

    @Test("the control-character scan finds the first one at every offset, across 8-byte words")
    func controlCharacterScan() {
        let plain = Array("venue-00001-b01 Beacon 12 entrance".utf8)
        let intruders: [[UInt8]] = [[0x00], [0x09], [0x0A], [0x1B], [0x1F], [0x7F], [0xC2, 0x85], [0xC2, 0x9F]]
        let harmless: [[UInt8]] = [[0x20], [0x7E], [0xC2, 0xA0], [0xC3, 0xBC], [0xE2, 0x80, 0xA6]]
        for length in 0...plain.count {
            for offset in 0...length {
                for insert in intruders + harmless {
                    var bytes = Array(plain.prefix(length))
                    bytes.insert(contentsOf: insert, at: offset)
                    let fast = bytes.withUnsafeBufferPointer { ControlCharacter.first(in: $0) }
                    #expect(fast == slowFirst(bytes), "\(bytes)")
                }
            }
        }
    }

    @Test("duplicates among many entries: each repeat paired with the first occurrence, in order")
    func duplicatesAmongMany() {
        // Past the radix sort's threshold, with repeats near and far and entries left out.
        let count = 20_000
        let keys = (0..<count).map { index in index % 7 == 0 ? "id-\(index / 3)" : "id-\(index)" }
        let include: (Int) -> Bool = { $0 % 11 != 0 }
        var firstIndex: [String: Int] = [:]
        var expected: [(first: Int, repeated: Int)] = []
        for index in 0..<count where include(index) {
            if let first = firstIndex[keys[index]] {
                expected.append((first, index))
            } else {
                firstIndex[keys[index]] = index
            }
        }
        let found = Duplicates.find(count: count, include: include, key: { keys[$0] })
        #expect(!expected.isEmpty)
        #expect(found.map(\.first) == expected.map(\.first))
        #expect(found.map(\.repeated) == expected.map(\.repeated))
    }

    @Test("duplicates that share a hash bucket: one key many times, and different keys whose hashes meet")
    func duplicatesInOneBucket() {
        // Every entry in one bucket (all hashes equal): the keys alone tell "a" from "b".
        let keys = (0..<5_000).map { $0 % 3 == 0 ? "a" : "b" }
        let found = Duplicates.find(count: keys.count, include: { _ in true }, hash: { _ in 7 }, key: { keys[$0] })
        let expected = (2..<keys.count).map { (first: $0 % 3 == 0 ? 0 : 1, repeated: $0) }
        #expect(found.map(\.first) == expected.map(\.first))
        #expect(found.map(\.repeated) == expected.map(\.repeated))
        // No entries, and entries all left out.
        #expect(Duplicates.find(count: 0, include: { _ in true }, key: { $0 }).isEmpty)
        #expect(Duplicates.find(count: 10, include: { _ in false }, key: { _ in 1 }).isEmpty)
    }
}
