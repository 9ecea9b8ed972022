/// Reads records of one format from bytes fed in chunks, in file order: the refill and
/// parse loop written once, with each format's judgement in its `RecordDecoder`.
///
/// It owns what every format shares: the buffer and its compaction, the position of each
/// record (its number and byte offset, for errors and for "keep the first N bytes"), and
/// the end of the input (what a tail is, a last record or a record cut short, is the
/// decoder's `decodeLast`, asked once the input ended). Memory stays bounded: one record
/// plus one chunk, whatever the input's length, since decoders cap their lengths before
/// asking for more.
///
/// No I/O and no waiting here (this module has none): a caller feeds `append(_:)` from a
/// file, a pipe or memory, and calls `finish()` when no more bytes will come. Inlinable, so
/// that each format's loop is specialised for its decoder where it is used.
public struct FramingReader<Decoder: RecordDecoder> {
    /// The format's decoder, with what it learnt of the input so far (byte order, interfaces).
    @inlinable
    public var decoder: Decoder { format }
    @usableFromInline var format: Decoder
    /// Bytes fed and not yet dropped; `bytes[start]` is at input offset `offset + start`.
    @usableFromInline var bytes: [UInt8]
    /// The first byte not read yet.
    @usableFromInline var start: Int
    /// The input offset of `bytes[0]`.
    @usableFromInline var offset = 0
    /// The number of the next record.
    @usableFromInline var recordIndex = 0
    /// Whether `finish()` was called.
    @inlinable
    public var isFinished: Bool { ended }
    @usableFromInline var ended = false
    /// Where the record `next()` returned last starts: its number from 0 and its byte offset.
    @inlinable
    public var lastRecordPosition: RecordPosition { lastPosition }
    @usableFromInline var lastPosition: RecordPosition = (index: 0, offset: 0)

    /// Starts on `prefix`, whose first `start` bytes were read already (a file header the
    /// caller judged itself); they count in the offsets.
    @inlinable
    public init(decoder: Decoder, prefix: [UInt8] = [], start: Int = 0) {
        self.format = decoder
        self.bytes = prefix
        self.start = start
    }

    /// Bytes held: fed and not read yet, plus at most one chunk already read (a measure of
    /// the reader's memory, whatever the input's length).
    @inlinable
    public var bufferedByteCount: Int { bytes.count }

    /// Bytes fed and not read yet.
    @inlinable
    public var unreadByteCount: Int { bytes.count - start }

    /// The bytes fed and not read yet, as they are (for a look at the input's start).
    @inlinable
    public var unreadBytes: ArraySlice<UInt8> { bytes[start...] }

    /// Hands over up to `count` of the bytes not read yet, raw, past the decoder: for a
    /// caller that reads the rest of the input in another framing after a look at its start.
    @inlinable
    public mutating func takeUnreadBytes(atMost count: Int) -> ArraySlice<UInt8> {
        let end = Swift.min(bytes.count, start + Swift.max(0, count))
        defer { start = end }
        return bytes[start..<end]
    }

    /// More bytes of the input, in order. What was read is dropped before growing (in
    /// 64 KiB steps, or all of it once everything was read), so the buffer never holds
    /// more than one record plus one chunk.
    @inlinable
    public mutating func append(_ more: some Collection<UInt8>) {
        if start > 0 && (start >= 64 * 1024 || start == bytes.count) {
            bytes.removeFirst(start)
            offset += start
            start = 0
        }
        bytes.append(contentsOf: more)
    }

    /// No more bytes will come: a record cut short is then the decoder's failure.
    @inlinable
    public mutating func finish() {
        ended = true
    }

    /// How many more bytes `next()` needs before it can say anything (0 when it can: a
    /// record, the end, or a failure).
    public var bytesNeeded: Int {
        let available = bytes.count - start
        guard available > 0 || !ended else { return 0 }
        // Asked of a copy: the decoder's answer, without moving the reader.
        var probe = format
        guard case .needMore(let total)? = try? probe.decode(bytes, from: start, position: (recordIndex, offset + start)) else {
            return 0
        }
        return max(0, total - available)
    }

    /// The next record; `nil` at the end of the input, or, before `finish()`, when the
    /// bytes fed so far hold no whole record (`bytesNeeded` says how many more).
    @inlinable
    public mutating func next() throws(Decoder.Failure) -> Decoder.Record? {
        while true {
            let position: RecordPosition = (recordIndex, offset + start)
            if start < bytes.count {
                switch try format.decode(bytes, from: start, position: position) {
                case .record(let record, let consumed):
                    start += consumed
                    recordIndex += 1
                    lastPosition = position
                    return record
                case .skip(let consumed, let counted):
                    start += consumed
                    if counted { recordIndex += 1 }
                    continue
                case .needMore:
                    break
                }
            }
            guard ended else { return nil }
            let last = try format.decodeLast(bytes, from: start, position: position)
            start = bytes.count
            guard let last else { return nil }
            recordIndex += 1
            lastPosition = position
            return last
        }
    }
}

extension FramingReader: Sendable where Decoder: Sendable {}
