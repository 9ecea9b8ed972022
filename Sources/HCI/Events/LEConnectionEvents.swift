import BeaconCore

/// LE Connection Complete (Core v5.4 Vol 4 Part E 7.7.65.1) and LE Enhanced Connection
/// Complete [v1] (7.7.65.10), one type: the enhanced form adds the two resolvable private
/// addresses between the peer address and the interval.
/// `status u8 | handle u16 | role u8 | peer_address_type u8 | peer_address[6] |
/// [local_rpa[6] | peer_rpa[6]] | interval u16 | latency u16 | supervision_timeout u16 |
/// central_clock_accuracy u8`.
public struct LEConnectionComplete: Hashable, Sendable {
    /// Role (7.7.65.1): what this controller is on the new link.
    public enum Role: Hashable, Sendable {
        case central, peripheral
        case other(UInt8)

        init(rawValue: UInt8) {
            switch rawValue {
            case 0x00: self = .central
            case 0x01: self = .peripheral
            default: self = .other(rawValue)
            }
        }

        var rawValue: UInt8 {
            switch self {
            case .central: 0x00
            case .peripheral: 0x01
            case .other(let value): value
            }
        }
    }

    public var status: HCIStatus
    public var connectionHandle: UInt16
    public var role: Role
    public var peerAddressType: LEAddressType
    public var peerAddress: BluetoothAddress
    /// Whether the event was the enhanced form, which carries the two addresses below.
    public var isEnhanced: Bool
    public var localResolvablePrivateAddress: BluetoothAddress
    public var peerResolvablePrivateAddress: BluetoothAddress
    /// Units of 1.25 ms.
    public var interval: UInt16
    public var latency: UInt16
    /// Units of 10 ms.
    public var supervisionTimeout: UInt16
    public var centralClockAccuracy: UInt8

    public init(
        status: HCIStatus, connectionHandle: UInt16, role: Role, peerAddressType: LEAddressType, peerAddress: BluetoothAddress,
        isEnhanced: Bool = false, localResolvablePrivateAddress: BluetoothAddress = .zero,
        peerResolvablePrivateAddress: BluetoothAddress = .zero,
        interval: UInt16, latency: UInt16, supervisionTimeout: UInt16, centralClockAccuracy: UInt8 = 0
    ) {
        self.status = status
        self.connectionHandle = connectionHandle
        self.role = role
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.isEnhanced = isEnhanced
        self.localResolvablePrivateAddress = localResolvablePrivateAddress
        self.peerResolvablePrivateAddress = peerResolvablePrivateAddress
        self.interval = interval
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
        self.centralClockAccuracy = centralClockAccuracy
    }

    init(parameters: ArraySlice<UInt8>, enhanced: Bool) throws(HCIDecodingError) {
        var reader = HCIByteReader(
            parameters, structure: enhanced ? "LE Enhanced Connection Complete event" : "LE Connection Complete event")
        status = HCIStatus(rawValue: try reader.readUInt8())
        connectionHandle = try reader.readUInt16() & 0x0FFF
        role = Role(rawValue: try reader.readUInt8())
        peerAddressType = LEAddressType(rawValue: try reader.readUInt8())
        peerAddress = try reader.readAddress()
        isEnhanced = enhanced
        localResolvablePrivateAddress = enhanced ? try reader.readAddress() : .zero
        peerResolvablePrivateAddress = enhanced ? try reader.readAddress() : .zero
        interval = try reader.readUInt16()
        latency = try reader.readUInt16()
        supervisionTimeout = try reader.readUInt16()
        centralClockAccuracy = try reader.readUInt8()
        // Later versions (v2, 7.7.65.10) append fields: ignored like every trailing field.
    }

    func encodeParameters(into bytes: inout [UInt8]) {
        bytes.append(status.rawValue)
        bytes.appendLittleEndian(connectionHandle)
        bytes.append(role.rawValue)
        bytes.append(peerAddressType.rawValue)
        bytes.appendAddress(peerAddress)
        if isEnhanced {
            bytes.appendAddress(localResolvablePrivateAddress)
            bytes.appendAddress(peerResolvablePrivateAddress)
        }
        bytes.appendLittleEndian(interval)
        bytes.appendLittleEndian(latency)
        bytes.appendLittleEndian(supervisionTimeout)
        bytes.append(centralClockAccuracy)
    }
}

/// LE Connection Update Complete (Core v5.4 Vol 4 Part E 7.7.65.3):
/// `status u8 | handle u16 | interval u16 | latency u16 | supervision_timeout u16`.
public struct LEConnectionUpdateComplete: Hashable, Sendable {
    public var status: HCIStatus
    public var connectionHandle: UInt16
    public var interval: UInt16
    public var latency: UInt16
    public var supervisionTimeout: UInt16

    public init(status: HCIStatus, connectionHandle: UInt16, interval: UInt16, latency: UInt16, supervisionTimeout: UInt16) {
        self.status = status
        self.connectionHandle = connectionHandle
        self.interval = interval
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
    }

    init(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var reader = HCIByteReader(parameters, structure: "LE Connection Update Complete event")
        status = HCIStatus(rawValue: try reader.readUInt8())
        connectionHandle = try reader.readUInt16() & 0x0FFF
        interval = try reader.readUInt16()
        latency = try reader.readUInt16()
        supervisionTimeout = try reader.readUInt16()
    }

    func encodeParameters(into bytes: inout [UInt8]) {
        bytes.append(status.rawValue)
        bytes.appendLittleEndian(connectionHandle)
        bytes.appendLittleEndian(interval)
        bytes.appendLittleEndian(latency)
        bytes.appendLittleEndian(supervisionTimeout)
    }
}

/// Number Of Completed Packets (Core v5.4 Vol 4 Part E 7.7.19): `num_handles u8 |` then per
/// handle `connection_handle u16 | num_completed_packets u16`. The pairs are interleaved on
/// the wire, as the Linux kernel (`hci_comp_pkts_info`) and Bumble read them.
public struct NumberOfCompletedPackets: Hashable, Sendable {
    public struct Entry: Hashable, Sendable {
        public var connectionHandle: UInt16
        public var completedPackets: UInt16

        public init(connectionHandle: UInt16, completedPackets: UInt16) {
            self.connectionHandle = connectionHandle
            self.completedPackets = completedPackets
        }
    }

    public var entries: [Entry]

    public init(entries: [Entry]) {
        self.entries = entries
    }

    init(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var reader = HCIByteReader(parameters, structure: "Number Of Completed Packets event")
        let count = Int(try reader.readUInt8())
        guard reader.remainingCount >= count * 4 else {
            throw .truncated(structure: reader.structure, offset: reader.offset, needed: count * 4, available: reader.remainingCount)
        }
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            entries.append(Entry(connectionHandle: try reader.readUInt16() & 0x0FFF, completedPackets: try reader.readUInt16()))
        }
        self.entries = entries
    }

    func encodeParameters(into bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: entries.count))
        for entry in entries {
            bytes.appendLittleEndian(entry.connectionHandle)
            bytes.appendLittleEndian(entry.completedPackets)
        }
    }
}
