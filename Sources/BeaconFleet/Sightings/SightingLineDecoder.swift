import BeaconCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The lines of JSON lines for `FramingReader`: the bytes up to a `\n`, without it (and
/// without a `\r` before it). A line longer than `limit` is cut there and handed over as
/// it is (the JSON decoder refuses it), so a reader never waits for, or holds, more than
/// `limit` bytes of one line. The end of the input ends the last line.
struct SightingLineDecoder: RecordDecoder {
    typealias Record = ArraySlice<UInt8>
    /// Any bytes make lines.
    typealias Failure = Never

    let limit: Int
    /// The input offset up to which no newline was found: no byte is searched twice,
    /// however many chunks a long line takes to arrive.
    private var searchedUpTo = 0

    init(limit: Int) {
        self.limit = Swift.max(1, limit)
    }

    @inline(__always)
    mutating func decode(_ bytes: [UInt8], from start: Int, position: RecordPosition) -> DecodingStep<ArraySlice<UInt8>> {
        let count = bytes.count
        let searchFrom = start + Swift.max(0, searchedUpTo - position.offset)
        let newline: Int? = bytes.withUnsafeBufferPointer { all in
            guard searchFrom < count, let base = all.baseAddress,
                let found = memchr(base + searchFrom, 0x0A, count - searchFrom)
            else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
        if let newline {
            return .record(Self.line(bytes, from: start, to: newline), consumed: newline + 1 - start)
        }
        searchedUpTo = position.offset + (count - start)
        guard count - start >= limit else { return .needMore(total: count - start + 1) }
        // No newline within the limit: the bytes are handed over; the decoder refuses them.
        return .record(Self.line(bytes, from: start, to: start + limit), consumed: limit)
    }

    /// The last line, which no newline ends.
    func decodeLast(_ bytes: [UInt8], from start: Int, position: RecordPosition) -> ArraySlice<UInt8>? {
        guard start < bytes.count else { return nil }
        return Self.line(bytes, from: start, to: bytes.count)
    }

    /// `bytes[start..<end]`, a `\r` at its end dropped.
    @inline(__always)
    private static func line(_ bytes: [UInt8], from start: Int, to end: Int) -> ArraySlice<UInt8> {
        bytes[start..<(end > start && bytes[end - 1] == 0x0D ? end - 1 : end)]
    }
}
