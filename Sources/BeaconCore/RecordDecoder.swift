/// One record format's judgement of the bytes in front of it, for `FramingReader` (in the
/// spirit of NIO's `NIOSingleStepByteToMessageDecoder`, `decode` and `decodeLast`): given
/// the bytes not read yet, a record and how many bytes it took, bytes that hold no record,
/// or "I need more"; and at the end of the input, what its last bytes are. Bytes that
/// cannot be this format are an error the decoder throws, naming the record and its
/// offset. The decoder never reads, buffers or waits: the reader does.
///
/// A decoder checks every length it reads against its format's cap before asking for
/// more, so that a corrupt length never makes the reader wait for, or hold, gigabytes.
public protocol RecordDecoder {
    associatedtype Record
    associatedtype Failure: Error

    /// Judges `bytes[start...]`, the record numbered `position.index` from 0 at byte
    /// `position.offset` of the input. The bytes may be none (asked how many a first look
    /// needs); what it returns or throws depends on the bytes alone and what the decoder
    /// learnt before, never on whether more will come.
    mutating func decode(_ bytes: [UInt8], from start: Int, position: RecordPosition) throws(Failure) -> DecodingStep<Record>

    /// The input ended with `bytes[start...]` not decoded (none: it ended between records),
    /// at `position`: the last record they make (a line without its newline), a failure (a
    /// record cut short, a header missing), or `nil` when the input may end there. Unless it
    /// throws, those bytes are read then.
    mutating func decodeLast(_ bytes: [UInt8], from start: Int, position: RecordPosition) throws(Failure) -> Record?
}

/// Where a record starts: its number from 0 and its byte offset in the input.
public typealias RecordPosition = (index: Int, offset: Int)

/// What a `RecordDecoder` made of the bytes in front of it.
public enum DecodingStep<Record> {
    /// A record, which took the first `consumed` bytes (at least one).
    case record(Record, consumed: Int)
    /// The first `consumed` bytes (at least one) hold nothing to hand out (a file header,
    /// a block of another kind); `counted` says whether they were a record of the input's
    /// numbering.
    case skip(consumed: Int, counted: Bool)
    /// Nothing can be said before `total` bytes (from the same start) are at hand.
    case needMore(total: Int)
}
