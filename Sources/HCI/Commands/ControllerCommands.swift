import BeaconCore

/// Reset (Core v5.4 Vol 4 Part E 7.3.2): the controller returns to its power-on state,
/// which also forgets which advertising command family was in use.
public struct Reset: HCIParameterlessCommand, Hashable {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.reset
    public init() {}
}

/// Set Event Mask (Core v5.4 Vol 4 Part E 7.3.1): `mask[8]`.
public struct SetEventMask: HCICommand, Hashable {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.setEventMask

    public var mask: HCIEventMask

    public init(mask: HCIEventMask) {
        self.mask = mask
    }

    public func encodeParameters(into bytes: inout [UInt8]) {
        bytes.appendLittleEndian(mask.rawValue)
    }

    public static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> SetEventMask {
        var reader = HCIByteReader(bytes, structure: "\(name) parameters")
        let mask = HCIEventMask(rawValue: try reader.readUInt64())
        try reader.expectEnd()
        return SetEventMask(mask: mask)
    }
}

/// Read Local Version Information (Core v5.4 Vol 4 Part E 7.4.1).
public struct ReadLocalVersionInformation: HCIParameterlessCommand, Hashable {
    public static let opcode = HCIOpcode.readLocalVersionInformation
    public init() {}

    /// Return parameters: `HCI_Version u8 | HCI_Subversion u16 | LMP_Version u8 |
    /// Company_Identifier u16 | LMP_Subversion u16`.
    public struct ReturnParameters: Hashable, Sendable {
        public var hciVersion: BluetoothCoreVersion
        public var hciSubversion: UInt16
        public var lmpVersion: BluetoothCoreVersion
        /// Bluetooth SIG company identifier of the controller's manufacturer.
        public var companyIdentifier: UInt16
        public var lmpSubversion: UInt16

        public init(hciVersion: BluetoothCoreVersion, hciSubversion: UInt16, lmpVersion: BluetoothCoreVersion,
                    companyIdentifier: UInt16, lmpSubversion: UInt16) {
            self.hciVersion = hciVersion
            self.hciSubversion = hciSubversion
            self.lmpVersion = lmpVersion
            self.companyIdentifier = companyIdentifier
            self.lmpSubversion = lmpSubversion
        }
    }

    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> ReturnParameters {
        var reader = HCIByteReader(bytes, structure: "\(name) return parameters")
        return ReturnParameters(
            hciVersion: BluetoothCoreVersion(rawValue: try reader.readUInt8()),
            hciSubversion: try reader.readUInt16(),
            lmpVersion: BluetoothCoreVersion(rawValue: try reader.readUInt8()),
            companyIdentifier: try reader.readUInt16(),
            lmpSubversion: try reader.readUInt16())
    }

    public static func encodeReturnParameters(_ value: ReturnParameters, into bytes: inout [UInt8]) {
        bytes.append(value.hciVersion.rawValue)
        bytes.appendLittleEndian(value.hciSubversion)
        bytes.append(value.lmpVersion.rawValue)
        bytes.appendLittleEndian(value.companyIdentifier)
        bytes.appendLittleEndian(value.lmpSubversion)
    }
}

/// A Core specification version as HCI_Version and LMP_Version encode it
/// (Bluetooth Assigned Numbers, 2.1 "Link Layer Version"). Open-ended: a newer controller's
/// version is shown as its number.
public struct BluetoothCoreVersion: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    public static let v4_0 = BluetoothCoreVersion(rawValue: 6)
    public static let v4_2 = BluetoothCoreVersion(rawValue: 8)
    /// The first version with extended advertising.
    public static let v5_0 = BluetoothCoreVersion(rawValue: 9)
    public static let v5_3 = BluetoothCoreVersion(rawValue: 12)
    public static let v5_4 = BluetoothCoreVersion(rawValue: 13)

    private static let names = [
        "1.0b", "1.1", "1.2", "2.0+EDR", "2.1+EDR", "3.0+HS", "4.0", "4.1", "4.2",
        "5.0", "5.1", "5.2", "5.3", "5.4", "6.0", "6.1", "6.2",
    ]

    /// `5.3`, or `version 0x17` when this table does not know the number yet.
    public var description: String {
        Int(rawValue) < Self.names.count ? Self.names[Int(rawValue)] : "version \(HexText.code(rawValue))"
    }

    public static func < (lhs: BluetoothCoreVersion, rhs: BluetoothCoreVersion) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

/// Read BD_ADDR (Core v5.4 Vol 4 Part E 7.4.6): the controller's public address.
/// All zeros when the controller has none (common on development boards).
public struct ReadBDADDR: HCIParameterlessCommand, Hashable {
    public typealias ReturnParameters = BluetoothAddress
    public static let opcode = HCIOpcode.readBDADDR
    public init() {}

    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> BluetoothAddress {
        var reader = HCIByteReader(bytes, structure: "\(name) return parameters")
        return try reader.readAddress()
    }

    public static func encodeReturnParameters(_ value: BluetoothAddress, into bytes: inout [UInt8]) {
        bytes.appendAddress(value)
    }
}

/// Read Local Supported Commands (Core v5.4 Vol 4 Part E 7.4.2): a 64-octet bit field,
/// one bit per command (the table is Core v5.4 Vol 4 Part E 6.27).
public struct ReadLocalSupportedCommands: HCIParameterlessCommand, Hashable {
    public typealias ReturnParameters = SupportedCommands
    public static let opcode = HCIOpcode.readLocalSupportedCommands
    public init() {}

    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> SupportedCommands {
        var reader = HCIByteReader(bytes, structure: "\(name) return parameters")
        return SupportedCommands(octets: Array(try reader.readBytes(SupportedCommands.octetCount)))
    }

    public static func encodeReturnParameters(_ value: SupportedCommands, into bytes: inout [UInt8]) {
        bytes += value.octets
    }
}

/// The Supported_Commands bit field: always 64 octets.
public struct SupportedCommands: Hashable, Sendable {
    public static let octetCount = 64
    public let octets: [UInt8]

    /// Pads or cuts `octets` to 64: a missing octet means "not supported".
    public init(octets: [UInt8]) {
        self.octets = Array((octets + Array(repeating: 0, count: Self.octetCount)).prefix(Self.octetCount))
    }

    /// Whether bit `bit` (0–7) of octet `octet` (0–63) is set; false outside those ranges.
    public func contains(octet: Int, bit: Int) -> Bool {
        guard octets.indices.contains(octet), (0..<8).contains(bit) else { return false }
        return octets[octet] & (1 << UInt8(bit)) != 0
    }
}
