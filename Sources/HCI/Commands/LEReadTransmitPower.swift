/// LE Read Transmit Power (Core v5.4 Vol 4 Part E 7.8.74): the lowest and highest TX power
/// the controller can use, in dBm: `Min_TX_Power i8 | Max_TX_Power i8`.
public struct LEReadTransmitPower: HCIParameterlessCommand, Hashable {
    public static let opcode = HCIOpcode.leReadTransmitPower
    public init() {}

    public struct ReturnParameters: Hashable, Sendable {
        public var minimum: Int8
        public var maximum: Int8

        public init(minimum: Int8, maximum: Int8) {
            self.minimum = minimum
            self.maximum = maximum
        }
    }

    /// Its bit in Read Local Supported Commands: octet 38, bit 7 (Core v5.4 Vol 4 Part E 6.27).
    public static let supportedCommandsBit = (octet: 38, bit: 7)

    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> ReturnParameters {
        guard bytes.count >= 2 else {
            throw .truncated(structure: "\(name) return parameters", offset: 0, needed: 2, available: bytes.count)
        }
        let minimum = Int8(bitPattern: bytes[bytes.startIndex])
        let maximum = Int8(bitPattern: bytes[bytes.startIndex + 1])
        return ReturnParameters(minimum: minimum, maximum: maximum)
    }

    public static func encodeReturnParameters(_ value: ReturnParameters, into bytes: inout [UInt8]) {
        bytes.append(UInt8(bitPattern: value.minimum))
        bytes.append(UInt8(bitPattern: value.maximum))
    }
}
