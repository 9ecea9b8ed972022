import BeaconCore

/// Reads a btsnoop capture record by record, trusting nothing in it: every length is
/// checked against the bytes present and every failure is a `BTSnoopError` naming the
/// record and its offset.
///
/// Reads datalinks 1002 (HCI UART, what `BTSnoopWriter` writes), 1001 (un-encapsulated
/// HCI; the flags tell command, event or data — SCO cannot be told from ACL there and
/// reads as ACL) and 2001 (Linux monitor, as btmon writes; records that are not HCI
/// packets, such as index or system notes, are skipped).
///
/// The file header is judged here; the records by `BTSnoopRecordDecoder`, through the
/// framing loop every capture format shares (`FramedCaptureReader`).
///
/// `next()` gives the next HCI packet record. A record whose lengths no HCI packet can
/// have, or whose packet says another length than the record, is corrupt: an error naming
/// it, never "the capture ended early". A record cut off by the end of the capture is
/// `truncatedRecord`.
public struct BTSnoopReader: FramedCaptureReader {
    /// The records after the file header, through the one framing loop.
    public var framing: FramingReader<BTSnoopRecordDecoder>

    public var datalink: BTSnoopDatalink { framing.decoder.datalink }

    /// Reads the file header from the first 16 bytes of `prefix`, and keeps the rest of
    /// `prefix` as the start of the records. More bytes come through `append(_:)`; the
    /// reader holds only what is not read yet, so a capture of any length is read in
    /// bounded memory when it is fed in chunks.
    public init(prefix bytes: [UInt8]) throws(BTSnoopError) {
        let comparable = min(bytes.count, BTSnoopFormat.magic.count)
        guard bytes.prefix(comparable).elementsEqual(BTSnoopFormat.magic.prefix(comparable)) else {
            throw .notBTSnoop
        }
        guard bytes.count >= BTSnoopFormat.fileHeaderLength else {
            throw .truncatedFileHeader(length: bytes.count)
        }
        let version = BTSnoopRecordDecoder.bigEndianUInt32(bytes, at: 8)
        guard version == BTSnoopFormat.version else { throw .unsupportedVersion(version) }
        let datalinkValue = BTSnoopRecordDecoder.bigEndianUInt32(bytes, at: 12)
        guard let datalink = BTSnoopDatalink(rawValue: datalinkValue) else {
            throw .unsupportedDatalink(datalinkValue)
        }
        self.framing = FramingReader(
            decoder: BTSnoopRecordDecoder(datalink: datalink), prefix: bytes, start: BTSnoopFormat.fileHeaderLength)
    }

    /// Reads a whole capture held in memory.
    public init(bytes: [UInt8]) throws(BTSnoopError) {
        try self.init(prefix: bytes)
        finish()
    }

    /// Every remaining record.
    public mutating func readAll() throws(BTSnoopError) -> [BTSnoopRecord] {
        var records: [BTSnoopRecord] = []
        while let record = try next() {
            records.append(record)
        }
        return records
    }
}
