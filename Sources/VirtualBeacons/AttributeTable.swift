import LECentral

/// One attribute of a server's table (Core v5.4 Vol 3 Part F 3.2): its handle, type, value
/// and what a client may do with it.
struct ServerAttribute: Hashable, Sendable {
    var handle: UInt16
    var type: AttributeUUID
    var value: [UInt8]
    var readable: Bool
    var writable: Bool
}

/// A fixed GATT database built from services and their characteristics (Core v5.4 Vol 3
/// Part G 3): handles in order from 0x0001, each service a Primary Service declaration, each
/// characteristic a declaration, its value and, when it notifies, a Client Characteristic
/// Configuration descriptor.
struct AttributeTable: Sendable {
    struct Characteristic: Hashable, Sendable {
        var uuid: AttributeUUID
        var properties: GATTCharacteristicProperties
        var value: [UInt8] = []
    }

    struct Service: Hashable, Sendable {
        var uuid: AttributeUUID
        var characteristics: [Characteristic]
    }

    private(set) var attributes: [ServerAttribute] = []
    /// Each service's declaration handle and the last handle of its group.
    private(set) var groups: [(start: UInt16, end: UInt16)] = []
    /// Value handles by characteristic UUID, and the descriptor handle of each that notifies.
    private(set) var valueHandles: [AttributeUUID: UInt16] = [:]
    private(set) var configurationHandles: [AttributeUUID: UInt16] = [:]

    init(_ services: [Service]) {
        var handle: UInt16 = 0
        func add(_ type: AttributeUUID, _ value: [UInt8], readable: Bool = true, writable: Bool = false) -> UInt16 {
            handle += 1
            attributes.append(ServerAttribute(handle: handle, type: type, value: value, readable: readable, writable: writable))
            return handle
        }
        for service in services {
            let start = add(.primaryService, service.uuid.littleEndian)
            for characteristic in service.characteristics {
                // Declaration value (Part G 3.3.1): properties, value handle, UUID.
                let valueHandle = handle + 2
                _ = add(
                    .characteristic,
                    [characteristic.properties.rawValue, UInt8(valueHandle & 0xFF), UInt8(valueHandle >> 8)] + characteristic.uuid.littleEndian)
                let properties = characteristic.properties
                _ = add(
                    characteristic.uuid, characteristic.value, readable: properties.contains(.read),
                    writable: !properties.isDisjoint(with: [.write, .writeWithoutResponse]))
                valueHandles[characteristic.uuid] = valueHandle
                if !properties.isDisjoint(with: [.notify, .indicate]) {
                    configurationHandles[characteristic.uuid] = add(.clientCharacteristicConfiguration, [0x00, 0x00], writable: true)
                }
            }
            groups.append((start, handle))
        }
    }

    func attribute(_ handle: UInt16) -> ServerAttribute? {
        guard handle >= 1, Int(handle) <= attributes.count else { return nil }
        return attributes[Int(handle) - 1]
    }

    mutating func setValue(_ value: [UInt8], of handle: UInt16) {
        guard handle >= 1, Int(handle) <= attributes.count else { return }
        attributes[Int(handle) - 1].value = value
    }

    /// The attributes with handles in `start...end` (an empty slice when the range holds none).
    func attributes(in start: UInt16, _ end: UInt16) -> ArraySlice<ServerAttribute> {
        let lower = max(Int(start), 1)
        let upper = min(Int(end), attributes.count)
        guard lower <= upper else { return [] }
        return attributes[(lower - 1)...(upper - 1)]
    }

    /// The last handle of the group whose declaration is at `handle`.
    func groupEnd(of handle: UInt16) -> UInt16 {
        groups.first { $0.start == handle }?.end ?? handle
    }
}
