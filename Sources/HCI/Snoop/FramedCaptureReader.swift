import BeaconCore

/// A capture reader made of a `FramingReader` over its format's decoder, plus what its
/// format adds (a file header, a format's name). The members every capture reader offers
/// for chunked input are the framing loop's own, so they are forwarded here, once.
/// Inlinable, so that the loop is specialised for the format where the reader is used.
public protocol FramedCaptureReader {
    associatedtype Decoder: RecordDecoder
    /// The one refill and parse loop the capture's bytes go through.
    var framing: FramingReader<Decoder> { get set }
}

extension FramedCaptureReader {
    /// More bytes of the capture, in file order.
    @inlinable
    public mutating func append(_ bytes: some Collection<UInt8>) {
        framing.append(bytes)
    }

    /// No more bytes will come: a record cut short is then `truncatedRecord`.
    @inlinable
    public mutating func finish() {
        framing.finish()
    }

    /// Whether `finish()` was called.
    @inlinable
    public var isFinished: Bool { framing.isFinished }

    /// Bytes held: fed and not read yet, plus at most one chunk already read (a measure of
    /// the reader's memory, whatever the capture's length).
    @inlinable
    public var bufferedByteCount: Int { framing.bufferedByteCount }

    /// How many more bytes `next()` needs before it can say anything (0 when it can).
    @inlinable
    public var bytesNeeded: Int { framing.bytesNeeded }

    /// Where the record `next()` returned last starts: its number from 0 and its byte offset.
    @inlinable
    public var lastRecordPosition: (index: Int, offset: Int) { framing.lastRecordPosition }

    /// The next record; `nil` at the end of the capture, or, before `finish()`, when the
    /// bytes fed so far hold no whole record (`bytesNeeded` says how many more).
    @inlinable
    public mutating func next() throws(Decoder.Failure) -> Decoder.Record? {
        try framing.next()
    }
}
