import BeaconCore

/// LE Create Connection (Core v5.4 Vol 4 Part E 7.8.12), the legacy family's way to connect
/// to one advertiser: `scan_interval u16 | scan_window u16 | filter_policy u8 |
/// peer_address_type u8 | peer_address[6] | own_address_type u8 | interval_min u16 |
/// interval_max u16 | max_latency u16 | supervision_timeout u16 | min_ce u16 | max_ce u16`.
/// Answered by Command Status; the result comes in LE (Enhanced) Connection Complete.
public struct LECreateConnection: HCICommand, Hashable, LEDirectConnectionCommand {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leCreateConnection
    public static let completion = HCICommandCompletion.commandStatus

    public var scanInterval: ScanInterval
    public var scanWindow: ScanInterval
    public var peerAddressType: PeerAddressType
    public var peerAddress: BluetoothAddress
    public var ownAddressType: OwnAddressType
    public var connection: LEConnectionParameters

    /// Filter policy 0: connect to the peer named here, not to the filter accept list.
    public init(
        scanInterval: ScanInterval, scanWindow: ScanInterval, peerAddressType: PeerAddressType, peerAddress: BluetoothAddress,
        ownAddressType: OwnAddressType, connection: LEConnectionParameters
    ) throws(HCIParameterError) {
        guard scanInterval.isLegacyCompatible, scanWindow.isLegacyCompatible else {
            throw HCIParameterError("LE Create Connection takes a scan interval and window up to 10.24 s, not \(scanInterval) and \(scanWindow)")
        }
        try Self.checkWindow(scanWindow, within: scanInterval)
        self.scanInterval = scanInterval
        self.scanWindow = scanWindow
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.ownAddressType = ownAddressType
        self.connection = connection
    }

    public func encodeParameters(into bytes: inout [UInt8]) {
        bytes.appendLittleEndian(scanInterval.units)
        bytes.appendLittleEndian(scanWindow.units)
        bytes.append(0x00)
        bytes.append(peerAddressType.rawValue)
        bytes.appendAddress(peerAddress)
        bytes.append(ownAddressType.rawValue)
        connection.encode(into: &bytes)
    }

    public static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LECreateConnection {
        var reader = HCIByteReader(bytes, structure: "\(name) parameters")
        let interval = try reader.readUInt16()
        let window = try reader.readUInt16()
        try readDirectFilterPolicy(&reader)
        let peerType = try reader.readEnumeration(PeerAddressType.self, field: "Peer_Address_Type")
        let peer = try reader.readAddress()
        let ownType = try reader.readEnumeration(OwnAddressType.self, field: "Own_Address_Type")
        return try decodeRest(
            &reader, timing: (interval, window, fields: "LE_Scan_Interval or LE_Scan_Window"), peerAddressType: peerType,
            peerAddress: peer, ownAddressType: ownType)
    }
}

/// LE Extended Create Connection [v1] (Core v5.4 Vol 4 Part E 7.8.66), the extended family's
/// form: `filter_policy u8 | own_address_type u8 | peer_address_type u8 | peer_address[6] |
/// initiating_phys u8 | per PHY set: scan_interval u16 | scan_window u16 | interval_min u16 |
/// interval_max u16 | max_latency u16 | supervision_timeout u16 | min_ce u16 | max_ce u16`.
/// This host initiates on LE 1M only: every LE controller has it.
public struct LEExtendedCreateConnection: HCICommand, Hashable, LEDirectConnectionCommand {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leExtendedCreateConnection
    public static let completion = HCICommandCompletion.commandStatus

    /// Initiating_PHYs bit 0: LE 1M.
    static let le1MBit: UInt8 = 0b001

    public var peerAddressType: PeerAddressType
    public var peerAddress: BluetoothAddress
    public var ownAddressType: OwnAddressType
    public var scanInterval: ScanInterval
    public var scanWindow: ScanInterval
    public var connection: LEConnectionParameters

    public init(
        scanInterval: ScanInterval, scanWindow: ScanInterval, peerAddressType: PeerAddressType, peerAddress: BluetoothAddress,
        ownAddressType: OwnAddressType, connection: LEConnectionParameters
    ) throws(HCIParameterError) {
        try Self.checkWindow(scanWindow, within: scanInterval)
        self.scanInterval = scanInterval
        self.scanWindow = scanWindow
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.ownAddressType = ownAddressType
        self.connection = connection
    }

    public func encodeParameters(into bytes: inout [UInt8]) {
        bytes.append(0x00)
        bytes.append(ownAddressType.rawValue)
        bytes.append(peerAddressType.rawValue)
        bytes.appendAddress(peerAddress)
        bytes.append(Self.le1MBit)
        bytes.appendLittleEndian(scanInterval.units)
        bytes.appendLittleEndian(scanWindow.units)
        connection.encode(into: &bytes)
    }

    public static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LEExtendedCreateConnection {
        var reader = HCIByteReader(bytes, structure: "\(name) parameters")
        try readDirectFilterPolicy(&reader)
        let ownType = try reader.readEnumeration(OwnAddressType.self, field: "Own_Address_Type")
        let peerType = try reader.readEnumeration(PeerAddressType.self, field: "Peer_Address_Type")
        let peer = try reader.readAddress()
        let phys = try reader.readUInt8()
        guard phys == le1MBit else { throw reader.invalid("Initiating_PHYs", phys, expected: "0x01 (LE 1M only, as this host sends)") }
        let interval = try reader.readUInt16()
        let window = try reader.readUInt16()
        return try decodeRest(
            &reader, timing: (interval, window, fields: "Scan_Interval or Scan_Window"), peerAddressType: peerType,
            peerAddress: peer, ownAddressType: ownType)
    }
}

/// What LE Create Connection and its extended form share: one peer connected to directly
/// (Initiator_Filter_Policy 0x00, not the filter accept list), looked for with a scan
/// timing whose window fits its interval, the connection's parameters last.
protocol LEDirectConnectionCommand: HCICommand {
    init(
        scanInterval: ScanInterval, scanWindow: ScanInterval, peerAddressType: PeerAddressType, peerAddress: BluetoothAddress,
        ownAddressType: OwnAddressType, connection: LEConnectionParameters
    ) throws(HCIParameterError)
}

extension LEDirectConnectionCommand {
    static func checkWindow(_ window: ScanInterval, within interval: ScanInterval) throws(HCIParameterError) {
        guard window <= interval else {
            throw HCIParameterError("scan window \(window) is longer than the scan interval \(interval)")
        }
    }

    static func readDirectFilterPolicy(_ reader: inout HCIByteReader) throws(HCIDecodingError) {
        let policy = try reader.readUInt8()
        guard policy == 0 else { throw reader.invalid("Initiator_Filter_Policy", policy, expected: "0x00 (this decoder reads direct connections only)") }
    }

    /// Reads the connection parameters that end the command, and makes it from the fields
    /// read before them: a scan timing below 0x0004, or one `init` refuses, is invalid.
    static func decodeRest(
        _ reader: inout HCIByteReader, timing: (interval: UInt16, window: UInt16, fields: String), peerAddressType: PeerAddressType,
        peerAddress: BluetoothAddress, ownAddressType: OwnAddressType
    ) throws(HCIDecodingError) -> Self {
        let connection = try LEConnectionParameters.decode(&reader)
        try reader.expectEnd()
        guard let scanInterval = ScanInterval(units: timing.interval), let scanWindow = ScanInterval(units: timing.window) else {
            throw reader.invalid(timing.fields, min(timing.interval, timing.window), expected: "0x0004 or more")
        }
        do {
            return try Self(
                scanInterval: scanInterval, scanWindow: scanWindow, peerAddressType: peerAddressType, peerAddress: peerAddress,
                ownAddressType: ownAddressType, connection: connection)
        } catch {
            throw .inconsistentParameters(structure: reader.structure, reason: error.message)
        }
    }
}

/// LE Create Connection Cancel (Core v5.4 Vol 4 Part E 7.8.13): answered by Command
/// Complete, then a connection-complete event with Unknown Connection Identifier (0x02).
public struct LECreateConnectionCancel: HCIParameterlessCommand, Hashable {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leCreateConnectionCancel
    public init() {}
}

/// Disconnect (Core v5.4 Vol 4 Part E 7.1.6): `connection_handle u16 | reason u8`.
/// Answered by Command Status, then Disconnection Complete.
public struct Disconnect: HCICommand, Hashable {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.disconnect
    public static let completion = HCICommandCompletion.commandStatus

    public var connectionHandle: UInt16
    public var reason: HCIStatus

    /// Remote User Terminated Connection (0x13) is what a host says when it simply hangs up.
    public init(connectionHandle: UInt16, reason: HCIStatus = .remoteUserTerminatedConnection) {
        self.connectionHandle = connectionHandle
        self.reason = reason
    }

    public func encodeParameters(into bytes: inout [UInt8]) {
        bytes.appendLittleEndian(connectionHandle)
        bytes.append(reason.rawValue)
    }

    public static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> Disconnect {
        var reader = HCIByteReader(bytes, structure: "\(name) parameters")
        let handle = try reader.readUInt16()
        let reason = HCIStatus(rawValue: try reader.readUInt8())
        try reader.expectEnd()
        return Disconnect(connectionHandle: handle, reason: reason)
    }
}

/// LE Connection Update (Core v5.4 Vol 4 Part E 7.8.18): `connection_handle u16 |` the
/// connection parameters. Answered by Command Status, then LE Connection Update Complete.
public struct LEConnectionUpdate: HCICommand, Hashable {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leConnectionUpdate
    public static let completion = HCICommandCompletion.commandStatus

    public var connectionHandle: UInt16
    public var connection: LEConnectionParameters

    public init(connectionHandle: UInt16, connection: LEConnectionParameters) {
        self.connectionHandle = connectionHandle
        self.connection = connection
    }

    public func encodeParameters(into bytes: inout [UInt8]) {
        bytes.appendLittleEndian(connectionHandle)
        connection.encode(into: &bytes)
    }

    public static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LEConnectionUpdate {
        var reader = HCIByteReader(bytes, structure: "\(name) parameters")
        let handle = try reader.readUInt16()
        let connection = try LEConnectionParameters.decode(&reader)
        try reader.expectEnd()
        return LEConnectionUpdate(connectionHandle: handle, connection: connection)
    }
}

/// Read Buffer Size (Core v5.4 Vol 4 Part E 7.4.5): the shared ACL buffers, which LE uses
/// when LE Read Buffer Size answers zeros.
public struct ReadBufferSize: HCIParameterlessCommand, Hashable {
    public static let opcode = HCIOpcode.readBufferSize
    public init() {}

    /// `ACL_Data_Packet_Length u16 | Synchronous_Data_Packet_Length u8 |
    /// Total_Num_ACL_Data_Packets u16 | Total_Num_Synchronous_Data_Packets u16`.
    public struct ReturnParameters: Hashable, Sendable {
        public var aclDataPacketLength: UInt16
        public var totalACLDataPackets: UInt16

        public init(aclDataPacketLength: UInt16, totalACLDataPackets: UInt16) {
            self.aclDataPacketLength = aclDataPacketLength
            self.totalACLDataPackets = totalACLDataPackets
        }
    }

    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> ReturnParameters {
        var reader = HCIByteReader(bytes, structure: "\(name) return parameters")
        let aclLength = try reader.readUInt16()
        _ = try reader.readUInt8()
        let aclCount = try reader.readUInt16()
        _ = try reader.readUInt16()
        return ReturnParameters(aclDataPacketLength: aclLength, totalACLDataPackets: aclCount)
    }

    public static func encodeReturnParameters(_ value: ReturnParameters, into bytes: inout [UInt8]) {
        bytes.appendLittleEndian(value.aclDataPacketLength)
        bytes.append(0)
        bytes.appendLittleEndian(value.totalACLDataPackets)
        bytes.appendLittleEndian(UInt16(0))
    }
}
