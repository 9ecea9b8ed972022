/// Reads pcap and pcapng captures packet by packet, fed in chunks, trusting nothing in them:
/// every length is checked against the bytes present and a cap before anything is
/// waited for or held, and every failure is a `PcapError` naming the record and its offset.
///
/// pcap (the libpcap format): a 24-octet header whose magic tells the byte order and the
/// time unit (`a1b2c3d4` microseconds, `a1b23c4d` nanoseconds, either byte order), then
/// records of `ts_sec u32 | ts_frac u32 | incl_len u32 | orig_len u32 | data`.
///
/// pcapng: blocks of `type u32 | total_length u32 | body | total_length u32`, in sections
/// that each start with a Section Header Block (whose byte-order magic `1a2b3c4d` sets the
/// byte order of the section) and declare their interfaces (Interface Description Blocks:
/// link type, snapshot length, `if_tsresol`, `if_tsoffset`). Enhanced, Simple and the
/// obsolete Packet Blocks give packets; every other block is skipped.
///
/// The packets are handed over whatever their link type: the caller picks what it reads.
public struct PcapReader {
    public enum Format: String, Sendable {
        case pcap
        case pcapng
    }

    /// Known once the first four bytes are in.
    public private(set) var format: Format?
    /// The bytes fed and not yet read, and where they are in the file.
    private var input = CaptureBuffer()
    private var recordIndex = 0
    private var bigEndian = false
    // pcap
    private var headerRead = false
    private var pcapLinkType: UInt32 = 0
    private var pcapNanoseconds = false
    // pcapng: the interfaces of the current section, and how many earlier sections declared
    private var interfaces: [Interface] = []
    private var interfacesBefore = 0
    private var inSection = false
    /// Where the record `next()` returned last starts: its number from 0 and its byte offset.
    public private(set) var lastRecordPosition = (index: 0, offset: 0)

    private struct Interface {
        var linkType: UInt32
        var snapshotLength: Int
        /// Timestamp units per second: `10^n` or `2^n`.
        var resolution: Resolution = .decimal(6)
        var offsetSeconds: Int64 = 0
    }

    private enum Resolution {
        case decimal(Int)
        case binary(Int)
    }

    /// The longest pcap record or pcapng block read: libpcap's largest snapshot length
    /// (256 KiB) and room for a block's header and options. A longer one is corruption.
    public static let maximumRecordLength = 262_144
    public static let maximumBlockLength = 262_144 + 64 * 1024
    /// Interfaces one pcapng section may declare.
    public static let maximumInterfaces = 1024

    public init() {}

    /// Whether `bytes` start like a pcap (either byte order, micro- or nanoseconds) or a
    /// pcapng file.
    public static func format(ofPrefix bytes: some Collection<UInt8>) -> Format? {
        let magic = Array(bytes.prefix(4))
        guard magic.count == 4 else { return nil }
        switch magic {
        case [0xA1, 0xB2, 0xC3, 0xD4], [0xD4, 0xC3, 0xB2, 0xA1], [0xA1, 0xB2, 0x3C, 0x4D], [0x4D, 0x3C, 0xB2, 0xA1]:
            return .pcap
        case [0x0A, 0x0D, 0x0D, 0x0A]:
            return .pcapng
        default:
            return nil
        }
    }

    /// More bytes of the capture, in file order.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        input.append(bytes)
    }

    /// No more bytes will come: a record cut short is then `truncatedRecord`.
    public mutating func finish() {
        input.ended = true
    }

    public var isFinished: Bool { input.ended }

    /// Bytes held (a measure of the reader's memory).
    public var bufferedByteCount: Int { input.bytes.count }

    /// How many more bytes `next()` needs before it can say anything (at least 1 when it
    /// cannot, 0 when it can).
    public var bytesNeeded: Int {
        let available = input.bytes.count - input.start
        let needed: Int
        switch format {
        case nil:
            needed = 4
        case .pcap where !headerRead:
            needed = 24
        case .pcap:
            guard available >= 16 else { return 16 - available }
            let length = Int(uint32(at: input.start + 8))
            needed = length <= Self.maximumRecordLength ? 16 + length : 0
        case .pcapng:
            guard available >= 12 else { return 12 - available }
            let length = Int(uint32(at: input.start + 4, bigEndian: blockBigEndian(at: input.start)))
            needed = length <= Self.maximumBlockLength ? length : 0
        }
        return max(0, needed - available)
    }

    /// The next packet; `nil` at the end of the capture, or, before `finish()`, when the
    /// bytes fed so far hold no whole record (`bytesNeeded` says how many more).
    public mutating func next() throws(PcapError) -> PcapPacket? {
        while true {
            let available = input.bytes.count - input.start
            guard available > 0 || !input.ended else {
                if format == nil || (format == .pcap && !headerRead) { throw .truncatedFileHeader(length: input.offset + input.start) }
                return nil
            }
            if format == nil {
                guard available >= 4 else {
                    if input.ended { throw .truncatedFileHeader(length: available) }
                    return nil
                }
                guard let found = Self.format(ofPrefix: input.bytes[input.start..<(input.start + 4)]) else { throw .notPcap }
                format = found
            }
            switch format {
            case .pcap:
                if !headerRead {
                    guard available >= 24 else {
                        if input.ended { throw .truncatedFileHeader(length: available) }
                        return nil
                    }
                    try readPcapHeader()
                    continue
                }
                return try nextPcapRecord()
            default:
                if let packet = try nextPcapngBlock() { return packet }
                if input.bytes.count - input.start == available { return nil }  // nothing consumed: needs bytes
            }
        }
    }

    // MARK: pcap

    private mutating func readPcapHeader() throws(PcapError) {
        let magic = Array(input.bytes[input.start..<(input.start + 4)])
        bigEndian = magic[0] == 0xA1
        pcapNanoseconds = magic == [0xA1, 0xB2, 0x3C, 0x4D] || magic == [0x4D, 0x3C, 0xB2, 0xA1]
        let major = uint16(at: input.start + 4)
        let minor = uint16(at: input.start + 6)
        guard major == 2 else { throw .unsupportedVersion(format: .pcap, major: major, minor: minor) }
        // The low 26 bits are the link type; the bits above say how much FCS there is.
        pcapLinkType = uint32(at: input.start + 20) & 0x03FF_FFFF
        headerRead = true
        input.start += 24
    }

    private mutating func nextPcapRecord() throws(PcapError) -> PcapPacket? {
        let available = input.bytes.count - input.start
        let offset = input.offset + input.start
        let index = recordIndex
        guard available >= 16 else {
            if input.ended && available > 0 { throw .truncatedRecord(format: .pcap, index: index, offset: offset) }
            return nil
        }
        let seconds = Int64(uint32(at: input.start))
        let fraction = Int64(uint32(at: input.start + 4))
        let includedLength = Int(uint32(at: input.start + 8))
        let originalLength = Int(uint32(at: input.start + 12))
        // Checked before waiting for the data: a corrupt length must not make the reader
        // wait for (or hold) gigabytes.
        guard includedLength <= Self.maximumRecordLength else {
            throw .invalidRecord(format: .pcap, index: index, offset: offset,
                                 reason: "its length \(includedLength) is beyond any packet (at most \(Self.maximumRecordLength) bytes)")
        }
        guard available >= 16 + includedLength else {
            if input.ended { throw .truncatedRecord(format: .pcap, index: index, offset: offset) }
            return nil
        }
        let data = input.bytes[(input.start + 16)..<(input.start + 16 + includedLength)]
        input.start += 16 + includedLength
        recordIndex += 1
        lastRecordPosition = (index, offset)
        return PcapPacket(
            linkType: pcapLinkType, interface: 0,
            unixNanoseconds: seconds * 1_000_000_000 + fraction * (pcapNanoseconds ? 1 : 1000),
            originalLength: originalLength, data: data)
    }

    // MARK: pcapng

    private static let sectionHeaderType: UInt32 = 0x0A0D_0D0A

    /// The byte order of the block at `offset`: a Section Header Block states its own.
    private func blockBigEndian(at offset: Int) -> Bool {
        guard input.bytes.count - offset >= 12, uint32(at: offset, bigEndian: false) == Self.sectionHeaderType else { return bigEndian }
        return input.bytes[offset + 8] == 0x1A
    }

    /// The packet of the next block, or `nil` for a block that holds none (read and
    /// skipped) or when more bytes are needed (nothing consumed).
    private mutating func nextPcapngBlock() throws(PcapError) -> PcapPacket? {
        let available = input.bytes.count - input.start
        let offset = input.offset + input.start
        let index = recordIndex
        func invalid(_ reason: String) -> PcapError {
            .invalidRecord(format: .pcapng, index: index, offset: offset, reason: reason)
        }
        guard available >= 12 else {
            if input.ended && available > 0 { throw .truncatedRecord(format: .pcapng, index: index, offset: offset) }
            return nil
        }
        let type = uint32(at: input.start, bigEndian: false)
        if type == Self.sectionHeaderType {
            let magic = Array(input.bytes[(input.start + 8)..<(input.start + 12)])
            guard magic == [0x1A, 0x2B, 0x3C, 0x4D] || magic == [0x4D, 0x3C, 0x2B, 0x1A] else {
                throw invalid("its byte-order magic is \(HexText.bytes(magic)), not 1a2b3c4d in either order")
            }
            bigEndian = magic[0] == 0x1A
        } else if !inSection {
            throw invalid("it comes before any Section Header Block")
        }
        let blockType = uint32(at: input.start)
        let length = Int(uint32(at: input.start + 4))
        guard length >= 12, length % 4 == 0 else {
            throw invalid("its total length \(length) is not a multiple of 4 of at least 12")
        }
        guard length <= Self.maximumBlockLength else {
            throw invalid("its total length \(length) is beyond any block this reader takes (at most \(Self.maximumBlockLength) bytes)")
        }
        guard available >= length else {
            if input.ended { throw .truncatedRecord(format: .pcapng, index: index, offset: offset) }
            return nil
        }
        guard Int(uint32(at: input.start + length - 4)) == length else {
            throw invalid("its trailing total length \(uint32(at: input.start + length - 4)) differs from the leading \(length)")
        }
        let body = input.start + 8
        let bodyEnd = input.start + length - 4
        var packet: PcapPacket?
        switch blockType {
        case Self.sectionHeaderType:
            guard length >= 28 else { throw invalid("a Section Header Block needs 28 bytes; it has \(length)") }
            let major = uint16(at: body + 4)
            let minor = uint16(at: body + 6)
            guard major == 1 else { throw .unsupportedVersion(format: .pcapng, major: major, minor: minor) }
            interfacesBefore += interfaces.count
            interfaces = []
            inSection = true
        case 1:  // Interface Description Block
            guard length >= 20 else { throw invalid("an Interface Description Block needs 20 bytes; it has \(length)") }
            guard interfaces.count < Self.maximumInterfaces else {
                throw invalid("the section declares more than \(Self.maximumInterfaces) interfaces")
            }
            var interface = Interface(linkType: UInt32(uint16(at: body)), snapshotLength: Int(uint32(at: body + 4)))
            try readInterfaceOptions(from: body + 8, to: bodyEnd, into: &interface, invalid: invalid)
            interfaces.append(interface)
        case 6, 2:  // Enhanced Packet Block; the obsolete Packet Block
            guard length >= 32 else { throw invalid("a packet block needs 32 bytes; it has \(length)") }
            let interfaceID = blockType == 6 ? Int(uint32(at: body)) : Int(uint16(at: body))
            let timestamp = UInt64(uint32(at: body + 4)) << 32 | UInt64(uint32(at: body + 8))
            let capturedLength = Int(uint32(at: body + 12))
            let originalLength = Int(uint32(at: body + 16))
            guard capturedLength <= bodyEnd - (body + 20) else {
                throw invalid("its captured length \(capturedLength) runs past the block")
            }
            guard interfaceID < interfaces.count else {
                throw invalid("it names interface \(interfaceID); the section declared \(interfaces.count)")
            }
            let interface = interfaces[interfaceID]
            guard let nanoseconds = Self.unixNanoseconds(timestamp, of: interface) else {
                throw invalid("its timestamp is beyond the years 1678–2262")
            }
            packet = PcapPacket(
                linkType: interface.linkType, interface: interfacesBefore + interfaceID, unixNanoseconds: nanoseconds,
                originalLength: originalLength, data: input.bytes[(body + 20)..<(body + 20 + capturedLength)])
        case 3:  // Simple Packet Block: interface 0, no timestamp
            guard length >= 16 else { throw invalid("a Simple Packet Block needs 16 bytes; it has \(length)") }
            guard let interface = interfaces.first else { throw invalid("a Simple Packet Block needs an interface; the section declared none") }
            let originalLength = Int(uint32(at: body))
            var capturedLength = min(originalLength, bodyEnd - (body + 4))
            if interface.snapshotLength > 0 { capturedLength = min(capturedLength, interface.snapshotLength) }
            packet = PcapPacket(
                linkType: interface.linkType, interface: interfacesBefore, unixNanoseconds: nil,
                originalLength: originalLength, data: input.bytes[(body + 4)..<(body + 4 + capturedLength)])
        default:
            break  // statistics, name resolution, custom and unknown blocks
        }
        input.start += length
        recordIndex += 1
        if packet != nil { lastRecordPosition = (index, offset) }
        return packet
    }

    /// `if_tsresol` (9) and `if_tsoffset` (14); other options are skipped.
    private func readInterfaceOptions(
        from first: Int, to end: Int, into interface: inout Interface, invalid: (String) -> PcapError
    ) throws(PcapError) {
        var offset = first
        while end - offset >= 4 {
            let code = uint16(at: offset)
            let length = Int(uint16(at: offset + 2))
            if code == 0 { return }
            let padded = (length + 3) & ~3
            guard padded <= end - offset - 4 else { throw invalid("its option \(code) runs past the block") }
            let value = offset + 4
            if code == 9 && length >= 1 {
                let resolution = input.bytes[value]
                let exponent = Int(resolution & 0x7F)
                interface.resolution = resolution & 0x80 == 0 ? .decimal(exponent) : .binary(exponent)
            } else if code == 14 && length >= 8 {
                let high = UInt64(uint32(at: value)), low = UInt64(uint32(at: value + 4))
                interface.offsetSeconds = Int64(bitPattern: bigEndian ? high << 32 | low : low << 32 | high)
            }
            offset += 4 + padded
        }
    }

    /// Nanoseconds since the Unix epoch, `nil` when they do not fit 64 bits.
    private static func unixNanoseconds(_ timestamp: UInt64, of interface: Interface) -> Int64? {
        var nanoseconds: Int64
        switch interface.resolution {
        case .decimal(let exponent) where exponent <= 9:
            var scale: Int64 = 1
            for _ in exponent..<9 { scale *= 10 }
            guard timestamp <= UInt64(Int64.max) else { return nil }
            let (value, overflow) = Int64(timestamp).multipliedReportingOverflow(by: scale)
            guard !overflow else { return nil }
            nanoseconds = value
        case .decimal(let exponent):
            var value = timestamp
            for _ in 9..<min(exponent, 40) { value /= 10 }
            nanoseconds = Int64(value)
        case .binary(let exponent):
            let seconds = Double(timestamp) / Double(sign: .plus, exponent: exponent, significand: 1)
            guard let value = Int64(exactly: (seconds * 1e9).rounded()) else { return nil }
            nanoseconds = value
        }
        let (offset, offsetOverflow) = interface.offsetSeconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !offsetOverflow else { return nil }
        let (sum, sumOverflow) = nanoseconds.addingReportingOverflow(offset)
        return sumOverflow ? nil : sum
    }

    // MARK: Bytes

    private func uint16(at offset: Int) -> UInt16 {
        let first = UInt16(input.bytes[offset]), second = UInt16(input.bytes[offset + 1])
        return bigEndian ? first << 8 | second : second << 8 | first
    }

    private func uint32(at offset: Int) -> UInt32 {
        uint32(at: offset, bigEndian: bigEndian)
    }

    private func uint32(at offset: Int, bigEndian: Bool) -> UInt32 {
        var value: UInt32 = 0
        for index in 0..<4 {
            value |= UInt32(input.bytes[offset + index]) << (bigEndian ? 24 - 8 * index : 8 * index)
        }
        return value
    }
}

/// One packet of a pcap or pcapng capture.
public struct PcapPacket: Sendable {
    /// The link type of its interface (LINKTYPE_* numbers, e.g. 201 for H4 with a direction
    /// pseudo-header).
    public var linkType: UInt32
    /// Its interface: 0 in a pcap file; in pcapng, counted across the file's sections.
    public var interface: Int
    /// When it was captured; `nil` for a pcapng Simple Packet Block, which has no time.
    public var unixNanoseconds: Int64?
    /// Its length on the wire (at least `data.count` unless the writer lied).
    public var originalLength: Int
    public var data: ArraySlice<UInt8>
}

/// Why a pcap or pcapng capture could not be read. Offsets count bytes from the file's start.
public enum PcapError: Error, Equatable, Sendable, CustomStringConvertible {
    case notPcap
    case truncatedFileHeader(length: Int)
    case unsupportedVersion(format: PcapReader.Format, major: UInt16, minor: UInt16)
    case truncatedRecord(format: PcapReader.Format, index: Int, offset: Int)
    case invalidRecord(format: PcapReader.Format, index: Int, offset: Int, reason: String)

    public var description: String {
        switch self {
        case .notPcap:
            return "not a pcap or pcapng file: it starts with neither magic"
        case .truncatedFileHeader(let length):
            return "pcap file is \(length) bytes long, shorter than its header"
        case .unsupportedVersion(let format, let major, let minor):
            return "\(format.rawValue) version \(major).\(minor) is not supported (only \(format == .pcap ? "2.x" : "1.x"))"
        case .truncatedRecord(let format, let index, let offset):
            return "\(format.recordName) \(index) at byte \(offset) is cut short: the capture ended while it was written"
        case .invalidRecord(let format, let index, let offset, let reason):
            return "\(format.recordName) \(index) at byte \(offset) is invalid: \(reason); "
                + "the capture is damaged from there: to use what precedes it, keep its first \(offset) bytes (head -c \(offset))"
        }
    }
}

extension PcapReader.Format {
    /// How its units are called in messages: "pcap record", "pcapng block".
    public var recordName: String {
        switch self {
        case .pcap: "pcap record"
        case .pcapng: "pcapng block"
        }
    }
}
