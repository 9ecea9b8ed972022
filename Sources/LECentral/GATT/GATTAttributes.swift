/// A service found by primary service discovery (Core v5.4 Vol 3 Part G 4.4.1): its
/// declaration handle, the last handle of its group, its UUID.
public struct GATTService: Hashable, Sendable {
    public var uuid: AttributeUUID
    public var handle: UInt16
    public var endHandle: UInt16

    public init(uuid: AttributeUUID, handle: UInt16, endHandle: UInt16) {
        self.uuid = uuid
        self.handle = handle
        self.endHandle = endHandle
    }
}

/// Characteristic Properties (Core v5.4 Vol 3 Part G 3.3.1.1).
public struct GATTCharacteristicProperties: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let broadcast = GATTCharacteristicProperties(rawValue: 0x01)
    public static let read = GATTCharacteristicProperties(rawValue: 0x02)
    public static let writeWithoutResponse = GATTCharacteristicProperties(rawValue: 0x04)
    public static let write = GATTCharacteristicProperties(rawValue: 0x08)
    public static let notify = GATTCharacteristicProperties(rawValue: 0x10)
    public static let indicate = GATTCharacteristicProperties(rawValue: 0x20)
    public static let authenticatedSignedWrites = GATTCharacteristicProperties(rawValue: 0x40)
    public static let extendedProperties = GATTCharacteristicProperties(rawValue: 0x80)
}

/// A characteristic found by characteristic discovery (Part G 4.6.1, declaration 3.3.1):
/// `properties u8 | value_handle u16 | uuid (2 or 16)`, and the last handle that belongs
/// to it (the next declaration's handle − 1, or its service's end).
public struct GATTCharacteristic: Hashable, Sendable {
    public var uuid: AttributeUUID
    public var declarationHandle: UInt16
    public var valueHandle: UInt16
    public var endHandle: UInt16
    public var properties: GATTCharacteristicProperties

    public init(uuid: AttributeUUID, declarationHandle: UInt16, valueHandle: UInt16, endHandle: UInt16, properties: GATTCharacteristicProperties) {
        self.uuid = uuid
        self.declarationHandle = declarationHandle
        self.valueHandle = valueHandle
        self.endHandle = endHandle
        self.properties = properties
    }
}

/// A descriptor found by descriptor discovery (Part G 4.7.1).
public struct GATTDescriptor: Hashable, Sendable {
    public var uuid: AttributeUUID
    public var handle: UInt16

    public init(uuid: AttributeUUID, handle: UInt16) {
        self.uuid = uuid
        self.handle = handle
    }
}
