import BeaconCore

/// The pcap and pcapng formats for `FramingReader`, told apart by their first four bytes:
/// the pcap file header, then its records; or pcapng's blocks, whose sections set the byte
/// order and declare the interfaces. Every length is checked against the bytes present and
/// a cap before more are asked for, and every failure is a `PcapError` naming the record
/// (or block) and its offset. Layouts: `PcapReader`'s summary.
public struct PcapRecordDecoder: RecordDecoder {
    /// Known once the first four bytes are in.
    public private(set) var format: PcapReader.Format?
    private var bigEndian = false
    // pcap
    private var headerRead = false
    private var pcapLinkType: UInt32 = 0
    private var pcapNanoseconds = false
    // pcapng: the interfaces of the current section, and how many earlier sections declared
    private var interfaces: [Interface] = []
    private var interfacesBefore = 0
    private var inSection = false

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

    public init() {}

    public mutating func decode(_ bytes: [UInt8], from start: Int, position: RecordPosition) throws(PcapError)
        -> DecodingStep<PcapPacket> {
        if format == nil {
            guard bytes.count - start >= 4 else { return .needMore(total: 4) }
            guard let found = PcapReader.format(ofPrefix: bytes[start..<(start + 4)]) else { throw .notPcap }
            format = found
        }
        switch format {
        case .pcap where !headerRead:
            guard bytes.count - start >= 24 else { return .needMore(total: 24) }
            try readPcapHeader(bytes, from: start)
            return .skip(consumed: 24, counted: false)
        case .pcap:
            return try nextPcapRecord(bytes, from: start, position: position)
        default:
            return try nextPcapngBlock(bytes, from: start, position: position)
        }
    }

    /// Before the file header is whole: `truncatedFileHeader` (its length, the bytes there
    /// were); after it, a record or block cut short is `truncatedRecord`.
    public func decodeLast(_ bytes: [UInt8], from start: Int, position: RecordPosition) throws(PcapError) -> PcapPacket? {
        let remaining = bytes.count - start
        guard let format, format == .pcapng || headerRead else { throw .truncatedFileHeader(length: position.offset + remaining) }
        guard remaining == 0 else { throw .truncatedRecord(format: format, index: position.index, offset: position.offset) }
        return nil
    }

    // MARK: pcap

    private mutating func readPcapHeader(_ bytes: [UInt8], from start: Int) throws(PcapError) {
        let magic = Array(bytes[start..<(start + 4)])
        bigEndian = magic[0] == 0xA1
        pcapNanoseconds = magic == [0xA1, 0xB2, 0x3C, 0x4D] || magic == [0x4D, 0x3C, 0xB2, 0xA1]
        let major = uint16(bytes, at: start + 4)
        let minor = uint16(bytes, at: start + 6)
        guard major == 2 else { throw .unsupportedVersion(format: .pcap, major: major, minor: minor) }
        // The low 26 bits are the link type; the bits above say how much FCS there is.
        pcapLinkType = uint32(bytes, at: start + 20) & 0x03FF_FFFF
        headerRead = true
    }

    private func nextPcapRecord(_ bytes: [UInt8], from start: Int, position: RecordPosition) throws(PcapError)
        -> DecodingStep<PcapPacket> {
        let available = bytes.count - start
        let (index, offset) = position
        guard available >= 16 else { return .needMore(total: 16) }
        let seconds = Int64(uint32(bytes, at: start))
        let fraction = Int64(uint32(bytes, at: start + 4))
        let includedLength = Int(uint32(bytes, at: start + 8))
        let originalLength = Int(uint32(bytes, at: start + 12))
        // Checked before waiting for the data: a corrupt length must not make the reader
        // wait for (or hold) gigabytes.
        guard includedLength <= PcapReader.maximumRecordLength else {
            throw .invalidRecord(format: .pcap, index: index, offset: offset,
                                 reason: "its length \(includedLength) is beyond any packet (at most \(PcapReader.maximumRecordLength) bytes)")
        }
        guard available >= 16 + includedLength else { return .needMore(total: 16 + includedLength) }
        let data = bytes[(start + 16)..<(start + 16 + includedLength)]
        let packet = PcapPacket(
            linkType: pcapLinkType, interface: 0,
            unixNanoseconds: seconds * 1_000_000_000 + fraction * (pcapNanoseconds ? 1 : 1000),
            originalLength: originalLength, data: data)
        return .record(packet, consumed: 16 + includedLength)
    }

    // MARK: pcapng

    private static let sectionHeaderType: UInt32 = 0x0A0D_0D0A

    /// The packet of the next block, a block that holds none (skipped), or how many bytes
    /// the block needs.
    private mutating func nextPcapngBlock(_ bytes: [UInt8], from start: Int, position: RecordPosition) throws(PcapError)
        -> DecodingStep<PcapPacket> {
        let available = bytes.count - start
        let (index, offset) = position
        func invalid(_ reason: String) -> PcapError {
            .invalidRecord(format: .pcapng, index: index, offset: offset, reason: reason)
        }
        guard available >= 12 else { return .needMore(total: 12) }
        let type = Self.uint32(bytes, at: start, bigEndian: false)
        if type == Self.sectionHeaderType {
            let magic = Array(bytes[(start + 8)..<(start + 12)])
            guard magic == [0x1A, 0x2B, 0x3C, 0x4D] || magic == [0x4D, 0x3C, 0x2B, 0x1A] else {
                throw invalid("its byte-order magic is \(HexText.bytes(magic)), not 1a2b3c4d in either order")
            }
            bigEndian = magic[0] == 0x1A
        } else if !inSection {
            throw invalid("it comes before any Section Header Block")
        }
        let blockType = uint32(bytes, at: start)
        let length = Int(uint32(bytes, at: start + 4))
        guard length >= 12, length % 4 == 0 else {
            throw invalid("its total length \(length) is not a multiple of 4 of at least 12")
        }
        guard length <= PcapReader.maximumBlockLength else {
            throw invalid("its total length \(length) is beyond any block this reader takes (at most \(PcapReader.maximumBlockLength) bytes)")
        }
        guard available >= length else { return .needMore(total: length) }
        guard Int(uint32(bytes, at: start + length - 4)) == length else {
            throw invalid("its trailing total length \(uint32(bytes, at: start + length - 4)) differs from the leading \(length)")
        }
        let body = start + 8
        let bodyEnd = start + length - 4
        var packet: PcapPacket?
        switch blockType {
        case Self.sectionHeaderType:
            guard length >= 28 else { throw invalid("a Section Header Block needs 28 bytes; it has \(length)") }
            let major = uint16(bytes, at: body + 4)
            let minor = uint16(bytes, at: body + 6)
            guard major == 1 else { throw .unsupportedVersion(format: .pcapng, major: major, minor: minor) }
            interfacesBefore += interfaces.count
            interfaces = []
            inSection = true
        case 1:  // Interface Description Block
            guard length >= 20 else { throw invalid("an Interface Description Block needs 20 bytes; it has \(length)") }
            guard interfaces.count < PcapReader.maximumInterfaces else {
                throw invalid("the section declares more than \(PcapReader.maximumInterfaces) interfaces")
            }
            var interface = Interface(linkType: UInt32(uint16(bytes, at: body)), snapshotLength: Int(uint32(bytes, at: body + 4)))
            try readInterfaceOptions(bytes, from: body + 8, to: bodyEnd, into: &interface, invalid: invalid)
            interfaces.append(interface)
        case 6, 2:  // Enhanced Packet Block; the obsolete Packet Block
            guard length >= 32 else { throw invalid("a packet block needs 32 bytes; it has \(length)") }
            let interfaceID = blockType == 6 ? Int(uint32(bytes, at: body)) : Int(uint16(bytes, at: body))
            let timestamp = UInt64(uint32(bytes, at: body + 4)) << 32 | UInt64(uint32(bytes, at: body + 8))
            let capturedLength = Int(uint32(bytes, at: body + 12))
            let originalLength = Int(uint32(bytes, at: body + 16))
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
                originalLength: originalLength, data: bytes[(body + 20)..<(body + 20 + capturedLength)])
        case 3:  // Simple Packet Block: interface 0, no timestamp
            guard length >= 16 else { throw invalid("a Simple Packet Block needs 16 bytes; it has \(length)") }
            guard let interface = interfaces.first else { throw invalid("a Simple Packet Block needs an interface; the section declared none") }
            let originalLength = Int(uint32(bytes, at: body))
            var capturedLength = min(originalLength, bodyEnd - (body + 4))
            if interface.snapshotLength > 0 { capturedLength = min(capturedLength, interface.snapshotLength) }
            packet = PcapPacket(
                linkType: interface.linkType, interface: interfacesBefore, unixNanoseconds: nil,
                originalLength: originalLength, data: bytes[(body + 4)..<(body + 4 + capturedLength)])
        default:
            break  // statistics, name resolution, custom and unknown blocks
        }
        guard let packet else { return .skip(consumed: length, counted: true) }
        return .record(packet, consumed: length)
    }

    /// `if_tsresol` (9) and `if_tsoffset` (14); other options are skipped.
    private func readInterfaceOptions(
        _ bytes: [UInt8], from first: Int, to end: Int, into interface: inout Interface, invalid: (String) -> PcapError
    ) throws(PcapError) {
        var offset = first
        while end - offset >= 4 {
            let code = uint16(bytes, at: offset)
            let length = Int(uint16(bytes, at: offset + 2))
            if code == 0 { return }
            let padded = (length + 3) & ~3
            guard padded <= end - offset - 4 else { throw invalid("its option \(code) runs past the block") }
            let value = offset + 4
            if code == 9 && length >= 1 {
                let resolution = bytes[value]
                let exponent = Int(resolution & 0x7F)
                interface.resolution = resolution & 0x80 == 0 ? .decimal(exponent) : .binary(exponent)
            } else if code == 14 && length >= 8 {
                let high = UInt64(uint32(bytes, at: value)), low = UInt64(uint32(bytes, at: value + 4))
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

    private func uint16(_ bytes: [UInt8], at offset: Int) -> UInt16 {
        let first = UInt16(bytes[offset]), second = UInt16(bytes[offset + 1])
        return bigEndian ? first << 8 | second : second << 8 | first
    }

    private func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        Self.uint32(bytes, at: offset, bigEndian: bigEndian)
    }

    private static func uint32(_ bytes: [UInt8], at offset: Int, bigEndian: Bool) -> UInt32 {
        var value: UInt32 = 0
        for index in 0..<4 {
            value |= UInt32(bytes[offset + index]) << (bigEndian ? 24 - 8 * index : 8 * index)
        }
        return value
    }
}
