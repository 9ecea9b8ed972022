import BeaconCore

/// What the capture readers (btsnoop, pcap and pcapng) offer the driver that feeds them
/// from a file or a pipe: bytes go in by chunks in file order; whole records come out one
/// at a time, `nil` meaning "more bytes, please" until `finish()` says no more will come.
/// Each is a `FramingReader` (the one refill and parse loop: buffering, positions, the end
/// of the input) over its format's `RecordDecoder`, which judges lengths and corruption.
public protocol CaptureRecordReader {
    associatedtype Record
    associatedtype Failure: Error, CustomStringConvertible

    /// More bytes of the capture, in file order.
    mutating func append(_ bytes: some Collection<UInt8>)
    /// No more bytes will come: a record cut short is then a truncation failure.
    mutating func finish()
    /// Whether `finish()` was called.
    var isFinished: Bool { get }
    /// How many more bytes `next()` needs before it can say anything (0 when it can).
    var bytesNeeded: Int { get }
    /// Where the record `next()` returned last starts: its number from 0 and its byte offset.
    var lastRecordPosition: (index: Int, offset: Int) { get }
    /// The next record; `nil` at the end, or before `finish()` when the bytes fed so far
    /// hold no whole record.
    mutating func next() throws(Failure) -> Record?
    /// Whether `failure` is a record cut short by the end of the capture (a writer stopped
    /// mid-record): what precedes it is whole, unlike with corruption.
    static func isTruncation(_ failure: Failure) -> Bool
}

extension BTSnoopReader: CaptureRecordReader {
    public static func isTruncation(_ failure: BTSnoopError) -> Bool {
        if case .truncatedRecord = failure { return true }
        return false
    }
}

extension PcapReader: CaptureRecordReader {
    public static func isTruncation(_ failure: PcapError) -> Bool {
        if case .truncatedRecord = failure { return true }
        return false
    }
}
