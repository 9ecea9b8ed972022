import HCI

/// The GATT procedures a central needs (Core v5.4 Vol 3 Part G 4), on one ATT client:
/// discovery of primary services, characteristics and descriptors; reads (long ones with
/// Read Blob); writes (long ones with Prepare / Execute Write, checked as a reliable write);
/// notifications and indications through the Client Characteristic Configuration.
///
/// Every discovery loop moves forward through the handle space or stops with an error, so
/// a peripheral that answers with handles going backwards cannot keep it running.
public struct GATTClient: Sendable {
    /// The longest attribute value (Part F 3.2.9).
    public static let maximumValueLength = 512

    public let att: ATTClient

    public init(att: ATTClient) {
        self.att = att
    }

    // MARK: Discovery

    /// Every primary service (4.4.1): Read By Group Type of 0x2800 over the whole handle
    /// range, again from the last group's end + 1 until Attribute Not Found.
    public func discoverPrimaryServices() async throws(LECentralError) -> [GATTService] {
        var services: [GATTService] = []
        var start: UInt16 = 0x0001
        while true {
            let response: ATTPDU
            do throws(LECentralError) {
                response = try await att.request(.readByGroupTypeRequest(start: start, end: 0xFFFF, type: .primaryService))
            } catch where Self.isEndOfRange(error) {
                return services
            }
            guard case .readByGroupTypeResponse(let groups) = response else {
                throw await malformed("service discovery was answered with \(ATTOpcode.name(response.opcode))")
            }
            for group in groups {
                guard group.handle >= start, group.endGroupHandle >= group.handle,
                    let uuid = AttributeUUID(littleEndian: group.value)
                else {
                    throw await malformed("a service group \(group.handle)–\(group.endGroupHandle) is out of order or its UUID is not 2 or 16 bytes")
                }
                services.append(GATTService(uuid: uuid, handle: group.handle, endHandle: group.endGroupHandle))
            }
            guard let last = groups.last, last.endGroupHandle < 0xFFFF else { return services }
            start = last.endGroupHandle + 1
        }
    }

    /// The characteristics of `service` (4.6.1): Read By Type of 0x2803 inside it.
    public func discoverCharacteristics(of service: GATTService) async throws(LECentralError) -> [GATTCharacteristic] {
        var found: [(declaration: UInt16, properties: UInt8, value: UInt16, uuid: AttributeUUID)] = []
        var start = service.handle
        while start <= service.endHandle {
            let response: ATTPDU
            do throws(LECentralError) {
                response = try await att.request(.readByTypeRequest(start: start, end: service.endHandle, type: .characteristic))
            } catch where Self.isEndOfRange(error) {
                break
            }
            guard case .readByTypeResponse(let entries) = response else {
                throw await malformed("characteristic discovery was answered with \(ATTOpcode.name(response.opcode))")
            }
            for entry in entries {
                var reader = HCIByteReader(entry.value, structure: "characteristic declaration")
                guard entry.handle >= start, entry.handle <= service.endHandle,
                    let properties = try? reader.readUInt8(), let valueHandle = try? reader.readUInt16(),
                    valueHandle > entry.handle, let uuid = AttributeUUID(littleEndian: reader.readRemaining())
                else {
                    throw await malformed("the characteristic declaration at handle \(entry.handle) is malformed or out of order")
                }
                found.append((entry.handle, properties, valueHandle, uuid))
            }
            guard let last = entries.last, last.handle < service.endHandle else { break }
            start = last.handle + 1
        }
        return found.enumerated().map { index, declaration in
            let end = index + 1 < found.count ? found[index + 1].declaration - 1 : service.endHandle
            return GATTCharacteristic(
                uuid: declaration.uuid, declarationHandle: declaration.declaration, valueHandle: declaration.value,
                endHandle: end, properties: GATTCharacteristicProperties(rawValue: declaration.properties))
        }
    }

    /// The descriptors of `characteristic` (4.7.1): Find Information after its value.
    public func discoverDescriptors(of characteristic: GATTCharacteristic) async throws(LECentralError) -> [GATTDescriptor] {
        var descriptors: [GATTDescriptor] = []
        guard characteristic.valueHandle < characteristic.endHandle else { return descriptors }
        var start = characteristic.valueHandle + 1
        while start <= characteristic.endHandle {
            let response: ATTPDU
            do throws(LECentralError) {
                response = try await att.request(.findInformationRequest(start: start, end: characteristic.endHandle))
            } catch where Self.isEndOfRange(error) {
                break
            }
            guard case .findInformationResponse(let entries) = response else {
                throw await malformed("descriptor discovery was answered with \(ATTOpcode.name(response.opcode))")
            }
            for entry in entries {
                guard entry.handle >= start, entry.handle <= characteristic.endHandle else {
                    throw await malformed("descriptor handle \(entry.handle) is outside \(start)–\(characteristic.endHandle)")
                }
                descriptors.append(GATTDescriptor(uuid: entry.uuid, handle: entry.handle))
            }
            guard let last = entries.last, last.handle < characteristic.endHandle else { break }
            start = last.handle + 1
        }
        return descriptors
    }

    // MARK: Reading

    /// Reads a value whole (4.8.1, 4.8.3): Read, then Read Blob from where it stopped while
    /// the parts come full (ATT_MTU − 1 bytes), up to 512 bytes.
    public func read(_ handle: UInt16) async throws(LECentralError) -> [UInt8] {
        let response = try await att.request(.readRequest(handle: handle))
        guard case .readResponse(var value) = response else {
            throw await malformed("Read was answered with \(ATTOpcode.name(response.opcode))")
        }
        let full = await att.mtu - 1
        var lastPart = value.count
        // 4.8.3: a full part may have more after it; a shorter one was the last.
        while lastPart == full, value.count < Self.maximumValueLength {
            let part: [UInt8]
            do throws(LECentralError) {
                part = try await readBlob(handle, offset: UInt16(value.count))
            } catch {
                // 4.8.3: a value exactly one MTU long ends with one of these.
                if case .attribute(_, _, let code) = error.kind, code == .attributeNotLong || code == .invalidOffset {
                    return value
                }
                throw error
            }
            lastPart = part.count
            value += part
            if value.count > Self.maximumValueLength {
                throw await malformed("the value at handle \(handle) is longer than the 512 bytes an attribute may hold")
            }
        }
        return value
    }

    /// One Read Blob (4.8.3): the part of the value from `offset`.
    public func readBlob(_ handle: UInt16, offset: UInt16) async throws(LECentralError) -> [UInt8] {
        let response = try await att.request(.readBlobRequest(handle: handle, offset: offset))
        guard case .readBlobResponse(let part) = response else {
            throw await malformed("Read Blob was answered with \(ATTOpcode.name(response.opcode))")
        }
        return part
    }

    // MARK: Writing

    /// Writes a value and waits for the server's acceptance: Write Request when it fits
    /// (ATT_MTU − 3), otherwise a reliable long write (4.9.4, 4.9.5): Prepare Write parts,
    /// each echo compared with what was sent, then Execute Write; a mismatch cancels.
    public func write(_ handle: UInt16, _ value: [UInt8]) async throws(LECentralError) {
        guard value.count <= Self.maximumValueLength else {
            throw await invalid("a value of \(value.count) bytes is longer than the 512 an attribute may hold")
        }
        let mtu = await att.mtu
        if value.count <= mtu - 3 {
            let response = try await att.request(.writeRequest(handle: handle, value: value))
            guard case .writeResponse = response else {
                throw await malformed("Write was answered with \(ATTOpcode.name(response.opcode))")
            }
            return
        }
        let partLength = mtu - 5
        var offset = 0
        while offset < value.count {
            let part = Array(value[offset..<min(value.count, offset + partLength)])
            let sent = ATTPDU.prepareWriteRequest(handle: handle, offset: UInt16(offset), part: part)
            let response = try await att.request(sent)
            guard case .prepareWriteResponse(handle, UInt16(offset), part) = response else {
                _ = try? await att.request(.executeWriteRequest(write: false))
                throw await malformed("the peripheral echoed a different part for offset \(offset) of a long write; the write was cancelled")
            }
            offset += part.count
        }
        let response = try await att.request(.executeWriteRequest(write: true))
        guard case .executeWriteResponse = response else {
            throw await malformed("Execute Write was answered with \(ATTOpcode.name(response.opcode))")
        }
    }

    /// Write Without Response (4.9.1): a command, no acknowledgement.
    public func writeWithoutResponse(_ handle: UInt16, _ value: [UInt8]) async throws(LECentralError) {
        try await att.command(.writeCommand(handle: handle, value: value))
    }

    // MARK: Notifications

    /// What to ask a characteristic to send (Client Characteristic Configuration, 3.3.3.3).
    public enum Subscription: UInt16, Sendable {
        case none = 0x0000
        case notifications = 0x0001
        case indications = 0x0002
    }

    /// Writes the characteristic's Client Characteristic Configuration (found among its
    /// descriptors) so that it notifies or indicates; values arrive in `att.handleValues()`,
    /// indications confirmed. Subscribe to that stream before this call so none is missed.
    public func subscribe(to characteristic: GATTCharacteristic, _ subscription: Subscription) async throws(LECentralError) {
        let needed: GATTCharacteristicProperties = subscription == .indications ? .indicate : .notify
        if subscription != .none, !characteristic.properties.contains(needed) {
            throw await invalid("characteristic \(characteristic.uuid) does not offer \(subscription == .indications ? "indications" : "notifications")")
        }
        let descriptors = try await discoverDescriptors(of: characteristic)
        guard let configuration = descriptors.first(where: { $0.uuid == .clientCharacteristicConfiguration }) else {
            throw await invalid("characteristic \(characteristic.uuid) has no Client Characteristic Configuration descriptor")
        }
        let raw = subscription.rawValue
        try await write(configuration.handle, [UInt8(truncatingIfNeeded: raw), UInt8(truncatingIfNeeded: raw >> 8)])
    }

    // MARK: Errors

    /// Attribute Not Found ends a discovery (4.4.1, 4.6.1, 4.7.1): not an error.
    private static func isEndOfRange(_ error: LECentralError) -> Bool {
        if case .attribute(_, _, let code) = error.kind, code == .attributeNotFound { return true }
        return false
    }

    private func malformed(_ what: String) async -> LECentralError {
        LECentralError(context: att.context, kind: .malformedResponse(what))
    }

    private func invalid(_ what: String) async -> LECentralError {
        LECentralError(context: att.context, kind: .invalidRequest(what))
    }
}
