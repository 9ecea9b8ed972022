/// The bytes a capture reader holds between chunks: what was fed and not read yet, and
/// where it sits in the file. Shared by the btsnoop and pcap/pcapng readers, so that both
/// keep the same bound: one record plus one chunk, whatever the capture's length.
struct CaptureBuffer {
    /// Bytes fed and not yet dropped; `bytes[start]` is at file offset `offset + start`.
    var bytes: [UInt8]
    /// The first byte not read yet.
    var start: Int
    /// The file offset of `bytes[0]`.
    var offset = 0
    /// No more bytes will come.
    var ended = false

    init(bytes: [UInt8] = [], start: Int = 0) {
        self.bytes = bytes
        self.start = start
    }

    /// Bytes fed and not read yet.
    var available: Int { bytes.count - start }

    /// More bytes of the capture, in file order. What was read is dropped before growing
    /// (in 64 KiB steps, or all of it once everything was read), so the buffer never holds
    /// more than one record plus one chunk.
    mutating func append(_ more: some Collection<UInt8>) {
        if start > 0 && (start >= 64 * 1024 || start == bytes.count) {
            bytes.removeFirst(start)
            offset += start
            start = 0
        }
        bytes.append(contentsOf: more)
    }
}
