import BeaconCore

/// LE Set Event Mask (Core v5.4 Vol 4 Part E 7.8.1): `LE_Event_Mask[8]`.
public struct LESetEventMask: HCICommand, Hashable {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leSetEventMask

    public var mask: LEEventMask

    public init(mask: LEEventMask) {
        self.mask = mask
    }

    public func encodeParameters(into bytes: inout [UInt8]) {
        bytes.appendLittleEndian(mask.rawValue)
    }

    public static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESetEventMask {
        var reader = HCIByteReader(bytes, structure: "\(name) parameters")
        let mask = LEEventMask(rawValue: try reader.readUInt64())
        try reader.expectEnd()
        return LESetEventMask(mask: mask)
    }
}

/// LE Read Buffer Size [v1] (Core v5.4 Vol 4 Part E 7.8.2).
public struct LEReadBufferSize: HCIParameterlessCommand, Hashable {
    public static let opcode = HCIOpcode.leReadBufferSize
    public init() {}

    /// `LE_ACL_Data_Packet_Length u16 | Total_Num_LE_ACL_Data_Packets u8`; zeros mean the
    /// LE and BR/EDR buffers are shared (then Read Buffer Size applies).
    public struct ReturnParameters: Hashable, Sendable {
        public var aclDataPacketLength: UInt16
        public var totalACLDataPackets: UInt8

        public init(aclDataPacketLength: UInt16, totalACLDataPackets: UInt8) {
            self.aclDataPacketLength = aclDataPacketLength
            self.totalACLDataPackets = totalACLDataPackets
        }
    }

    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> ReturnParameters {
        var reader = HCIByteReader(bytes, structure: "\(name) return parameters")
        return ReturnParameters(aclDataPacketLength: try reader.readUInt16(), totalACLDataPackets: try reader.readUInt8())
    }

    public static func encodeReturnParameters(_ value: ReturnParameters, into bytes: inout [UInt8]) {
        bytes.appendLittleEndian(value.aclDataPacketLength)
        bytes.append(value.totalACLDataPackets)
    }
}

/// LE Read Local Supported Features (Core v5.4 Vol 4 Part E 7.8.3): `LE_Features[8]`.
public struct LEReadLocalSupportedFeatures: HCIParameterlessCommand, Hashable {
    public typealias ReturnParameters = LEFeatures
    public static let opcode = HCIOpcode.leReadLocalSupportedFeatures
    public init() {}

    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LEFeatures {
        var reader = HCIByteReader(bytes, structure: "\(name) return parameters")
        return LEFeatures(rawValue: try reader.readUInt64())
    }

    public static func encodeReturnParameters(_ value: LEFeatures, into bytes: inout [UInt8]) {
        bytes.appendLittleEndian(value.rawValue)
    }
}

/// LE Set Random Address (Core v5.4 Vol 4 Part E 7.8.4): the address legacy advertising
/// sends when Own_Address_Type is random.
public struct LESetRandomAddress: HCICommand, Hashable {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leSetRandomAddress

    public var address: BluetoothAddress

    public init(address: BluetoothAddress) {
        self.address = address
    }

    public func encodeParameters(into bytes: inout [UInt8]) {
        bytes.appendAddress(address)
    }

    public static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESetRandomAddress {
        var reader = HCIByteReader(bytes, structure: "\(name) parameters")
        let address = try reader.readAddress()
        try reader.expectEnd()
        return LESetRandomAddress(address: address)
    }
}
