import BeaconCore
import Foundation
import Testing

@testable import BeaconFleet

/// The lines of a file as `SightingLineReader` cuts them (through `FramingReader` and
/// `SightingLineDecoder`), across its 64 KiB reads: the same lines one at a time and a
/// chunk at a time, a `\r` before a newline dropped, the last line ended by the end of the
/// file, and a line longer than the limit handed over in pieces of the limit.
@Suite("recorded lines, cut across reads")
struct SightingLineReaderTests {
    static func withFile<Result>(_ bytes: [UInt8], _ body: (String) async throws -> Result) async throws -> Result {
        let path = NSTemporaryDirectory() + "beaconctl-lines-\(UUID().uuidString).jsonl"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await body(path)
    }

    /// Lines of 0 to 300 bytes (some ending in `\r\n`), about 300 KB in all, the last
    /// without its newline; and what each must read as.
    static func text() -> (bytes: [UInt8], lines: [[UInt8]]) {
        var generator = SeededGenerator(seed: 7)
        var bytes: [UInt8] = []
        var lines: [[UInt8]] = []
        while bytes.count < 300_000 {
            let line = (0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0x20...0x7E, using: &generator) }
            lines.append(line)
            bytes += line + (Bool.random(using: &generator) ? [0x0D, 0x0A] : [0x0A])
        }
        let last = Array("{\"last\":true}".utf8)
        lines.append(last)
        bytes += last
        return (bytes, lines)
    }

    @Test("one at a time and a chunk at a time, the same lines")
    func lines() async throws {
        let (bytes, expected) = Self.text()
        try await Self.withFile(bytes) { path in
            var oneByOne: [[UInt8]] = []
            for try await line in SightingLineReader(path: path, maximumLineLength: 1000) { oneByOne.append(line) }
            #expect(oneByOne == expected)

            var reader = try SightingLineReader(path: path, maximumLineLength: 1000).makeReader()
            var chunked: [[UInt8]] = []
            while true {
                reader.takeBufferedLines { line in
                    chunked.append(Array(line))
                    return true
                }
                if reader.isDrained { break }
                try await reader.fillBuffer()
            }
            #expect(chunked == expected)
        }
    }

    @Test("a line longer than the limit, and than a read: pieces of the limit, then the rest, then the next line")
    func overlong() async throws {
        let long = [UInt8](repeating: 0x61, count: 200_000)
        try await Self.withFile(long + [0x0A] + Array("next".utf8)) { path in
            var lines: [[UInt8]] = []
            for try await line in SightingLineReader(path: path, maximumLineLength: 1000) { lines.append(line) }
            #expect(lines.last == Array("next".utf8))
            let pieces = lines.dropLast()
            #expect(pieces.dropLast().allSatisfy { $0.count == 1000 })
            #expect(pieces.count > 1 && pieces.last!.count <= 200_000)
            #expect(Array(pieces.joined()) == long)
        }
    }

    @Test("the first bytes are looked at, then read raw, as a capture is")
    func peekThenRaw() async throws {
        let bytes = (0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try await Self.withFile(bytes) { path in
            var reader = try SightingLineReader(path: path).makeReader()
            #expect(try await reader.peek(8) == Array(bytes.prefix(8)))
            var read = try await reader.read(exactly: 16)
            while true {
                let chunk = try await reader.read(atMost: 70_000)
                if chunk.isEmpty { break }
                read += chunk
            }
            #expect(read == bytes)
        }
    }
}
