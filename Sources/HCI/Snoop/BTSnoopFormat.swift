/// Facts of the btsnoop capture format, as Wireshark, btmon and Android read and write it:
///
/// ```
/// file header (16 octets, big-endian):  "btsnoop\0" | version u32 = 1 | datalink u32
/// each record (24 octets + data):       original_length u32 | included_length u32 |
///                                       flags u32 | cumulative_drops u32 | timestamp i64 | data
/// ```
/// The timestamp counts microseconds since midnight, January 1st of year 0 (nominal
/// Gregorian); Unix time is offset by 0x00DCDDB30F2F8000 µs.
public enum BTSnoopFormat {
    public static let magic: [UInt8] = Array("btsnoop".utf8) + [0]
    public static let version: UInt32 = 1
    public static let fileHeaderLength = 16
    public static let recordHeaderLength = 24
    /// Microseconds from the btsnoop epoch (year 0) to the Unix epoch (1970).
    public static let unixEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000
    /// The longest record any datalink can need: an H4 ACL packet, indicator (1) + header
    /// (4) + 65535 data bytes. A longer length in a record header is corruption.
    public static let maximumRecordLength = 1 + 4 + 65_535

    /// Flags bit 0: the packet went from the controller to the host.
    public static let receivedFlag: UInt32 = 1 << 0
    /// Flags bit 1: a command or an event (not data), for the HCI datalinks.
    public static let commandOrEventFlag: UInt32 = 1 << 1
}

/// The datalink a btsnoop file declares: how each record's data is framed.
public enum BTSnoopDatalink: UInt32, Hashable, Sendable {
    /// Un-encapsulated HCI ("H1"): no indicator byte; the flags tell command, event or data.
    case hciUnencapsulated = 1001
    /// HCI UART ("H4"): each record starts with the H4 packet indicator. What we write.
    case hciUART = 1002
    /// Linux monitor (btmon): the flags carry the controller index and a monitor opcode.
    case linuxMonitor = 2001
}

/// Which way a packet crossed the HCI.
public enum BTSnoopDirection: Hashable, Sendable {
    case hostToController
    case controllerToHost
}

/// One packet of a capture.
public struct BTSnoopRecord: Hashable, Sendable {
    public var packet: HCIPacket
    public var direction: BTSnoopDirection
    /// Microseconds since the Unix epoch.
    public var unixMicroseconds: Int64
    /// The packet's length on the wire; above the recorded length when the capture cut it.
    public var originalLength: Int
    /// Packets the capturing program lost before this one, as it counted them.
    public var cumulativeDrops: UInt32
    /// The controller index, for Linux monitor captures (`nil` otherwise).
    public var controllerIndex: UInt16?

    public init(packet: HCIPacket, direction: BTSnoopDirection, unixMicroseconds: Int64,
                originalLength: Int? = nil, cumulativeDrops: UInt32 = 0, controllerIndex: UInt16? = nil) {
        self.packet = packet
        self.direction = direction
        self.unixMicroseconds = unixMicroseconds
        self.originalLength = originalLength ?? packet.h4Bytes.count
        self.cumulativeDrops = cumulativeDrops
        self.controllerIndex = controllerIndex
    }

    /// True when the capture holds fewer bytes than the packet had.
    public var isTruncated: Bool { originalLength > packet.h4Bytes.count }
}

/// Why a capture could not be written or read. Offsets count bytes from the file's start.
public enum BTSnoopError: Error, Equatable, Sendable, CustomStringConvertible {
    case notBTSnoop
    case truncatedFileHeader(length: Int)
    case unsupportedVersion(UInt32)
    case unsupportedDatalink(UInt32)
    case truncatedRecord(index: Int, offset: Int)
    case invalidRecord(index: Int, offset: Int, reason: String)
    case fileSystem(path: String, operation: String, reason: String)

    public var description: String {
        switch self {
        case .notBTSnoop:
            return "not a btsnoop file: it does not start with \"btsnoop\\0\""
        case .truncatedFileHeader(let length):
            return "btsnoop file is \(length) bytes long, shorter than its 16-byte header"
        case .unsupportedVersion(let version):
            return "btsnoop version \(version) is not supported (only version 1 exists)"
        case .unsupportedDatalink(let datalink):
            return "btsnoop datalink \(datalink) is not supported; readable are 1001 (HCI), 1002 (HCI UART/H4) and 2001 (Linux monitor)"
        case .truncatedRecord(let index, let offset):
            return "btsnoop record \(index) at byte \(offset) is cut short: the capture ended while it was written"
        case .invalidRecord(let index, let offset, let reason):
            return "btsnoop record \(index) at byte \(offset) is invalid: \(reason); "
                + "the capture is damaged from there: to use what precedes it, keep its first \(offset) bytes (head -c \(offset))"
        case .fileSystem(let path, let operation, let reason):
            return "cannot \(operation) \(path): \(reason)"
        }
    }
}
