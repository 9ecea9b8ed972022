import BeaconCore

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
/// The formats are judged by `PcapRecordDecoder`, through the framing loop every capture
/// format shares (`FramedCaptureReader`): `next()` gives the next packet.
public struct PcapReader: FramedCaptureReader {
    public enum Format: String, Sendable {
        case pcap
        case pcapng
    }

    /// The packets, through the one framing loop.
    public var framing = FramingReader(decoder: PcapRecordDecoder())

    /// Known once the first four bytes are in.
    public var format: Format? { framing.decoder.format }

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
