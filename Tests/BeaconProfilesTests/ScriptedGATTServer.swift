import BeaconCore
import HCI
import LECentral
import Synchronization

/// An in-memory GATT server for the declarative profile's tests: services of readable,
/// writable characteristics at ATT MTU 23, each value kept as written, every write recorded.
/// A password characteristic can be made to refuse a wrong password in the three ways the
/// profile format names (an ATT error, a hang-up, a state read back).
final class ScriptedGATTServer: ATTBearer, Sendable {
    struct Characteristic: Sendable {
        var uuid: AttributeUUID
        var value: [UInt8]
    }

    struct Service: Sendable {
        var uuid: AttributeUUID
        var characteristics: [Characteristic]
    }

    /// How the password characteristic answers a write.
    struct PasswordCheck: Sendable {
        var characteristic: AttributeUUID
        var expected: [UInt8]
        var refusal: Refusal
        /// For `.stateByte`: the characteristic that reads 1 after the right password, 0 before or after a wrong one.
        var state: AttributeUUID?
    }

    enum Refusal: Sendable {
        case attError, hangUp, stateByte
    }

    let context = "scripted: peripheral F0:00:00:00:00:01"
    let incoming: AsyncThrowingStream<[UInt8], any Error>
    private let feed: AsyncThrowingStream<[UInt8], any Error>.Continuation
    /// Handle → (service, characteristic) of each value; the declarations sit one below.
    private let layout: [(service: AttributeUUID, start: UInt16, end: UInt16, characteristics: [(uuid: AttributeUUID, valueHandle: UInt16)])]
    private let state: Mutex<(values: [UInt16: [UInt8]], writes: [(AttributeUUID, [UInt8])], hungUp: Bool)>
    private let password: PasswordCheck?

    init(services: [Service], password: PasswordCheck? = nil) {
        (incoming, feed) = AsyncThrowingStream.makeStream(of: [UInt8].self)
        var handle: UInt16 = 1
        var layout: [(service: AttributeUUID, start: UInt16, end: UInt16, characteristics: [(uuid: AttributeUUID, valueHandle: UInt16)])] = []
        var values: [UInt16: [UInt8]] = [:]
        for service in services {
            let start = handle
            var characteristics: [(uuid: AttributeUUID, valueHandle: UInt16)] = []
            for characteristic in service.characteristics {
                characteristics.append((characteristic.uuid, handle + 2))
                values[handle + 2] = characteristic.value
                handle += 2
            }
            layout.append((service.uuid, start, handle, characteristics))
            handle += 1
        }
        self.layout = layout
        self.password = password
        state = Mutex((values, [], false))
    }

    /// The value a characteristic holds now.
    func value(of uuid: AttributeUUID) -> [UInt8]? {
        guard let handle = handle(of: uuid) else { return nil }
        return state.withLock { $0.values[handle] }
    }

    /// Every write in order: which characteristic, what bytes.
    var writes: [(AttributeUUID, [UInt8])] { state.withLock { $0.writes } }

    private func handle(of uuid: AttributeUUID) -> UInt16? {
        layout.lazy.flatMap(\.characteristics).first { $0.uuid == uuid }?.valueHandle
    }

    private func uuid(at handle: UInt16) -> AttributeUUID? {
        layout.lazy.flatMap(\.characteristics).first { $0.valueHandle == handle }?.uuid
    }

    func send(_ bytes: [UInt8]) async throws(LECentralError) {
        guard let pdu = try? ATTPDU(bytes: bytes) else { return }
        if state.withLock({ $0.hungUp }) { return }
        let notFound = { (request: UInt8, handle: UInt16) in ATTPDU.errorResponse(request: request, handle: handle, error: .attributeNotFound) }
        switch pdu {
        case .exchangeMTURequest:
            reply(.exchangeMTUResponse(serverMTU: 23))
        case .readByGroupTypeRequest(let start, _, _):
            // One group per response: ATT wants equal lengths in one, and UUIDs differ in width.
            guard let service = layout.first(where: { $0.start >= start }) else { return reply(notFound(pdu.opcode, start)) }
            reply(.readByGroupTypeResponse([.init(handle: service.start, endGroupHandle: service.end, value: service.service.littleEndian)]))
        case .readByTypeRequest(let start, let end, _):
            let declarations = layout.flatMap(\.characteristics).filter { $0.valueHandle - 1 >= start && $0.valueHandle - 1 <= end }
            guard let first = declarations.first else { return reply(notFound(pdu.opcode, start)) }
            // Read and write properties (0x02 | 0x08), the value handle, the UUID.
            let value = [0x0A, UInt8(first.valueHandle & 0xFF), UInt8(first.valueHandle >> 8)] + first.uuid.littleEndian
            reply(.readByTypeResponse([.init(handle: first.valueHandle - 1, value: value)]))
        case .findInformationRequest(let start, _):
            reply(notFound(pdu.opcode, start))
        case .readRequest(let handle):
            guard let value = state.withLock({ $0.values[handle] }) else { return reply(notFound(pdu.opcode, handle)) }
            reply(.readResponse(value: value))
        case .writeRequest(let handle, let value):
            guard let uuid = uuid(at: handle) else { return reply(notFound(pdu.opcode, handle)) }
            state.withLock { $0.writes.append((uuid, value)) }
            if let password, password.characteristic == uuid {
                return checkPassword(value, password, request: pdu.opcode, handle: handle)
            }
            state.withLock { $0.values[handle] = value }
            reply(.writeResponse)
        default:
            reply(.errorResponse(request: pdu.opcode, handle: 0, error: .requestNotSupported))
        }
    }

    private func checkPassword(_ value: [UInt8], _ check: PasswordCheck, request: UInt8, handle: UInt16) {
        let right = value == check.expected
        if let stateUUID = check.state, let stateHandle = self.handle(of: stateUUID) {
            state.withLock { $0.values[stateHandle] = [right ? 1 : 0] }
        }
        switch (right, check.refusal) {
        case (true, _), (false, .stateByte):
            reply(.writeResponse)
        case (false, .attError):
            reply(.errorResponse(request: request, handle: handle, error: .insufficientAuthorization))
        case (false, .hangUp):
            state.withLock { $0.hungUp = true }
            feed.finish(throwing: LECentralError(context: context, kind: .disconnected(reason: .remoteUserTerminatedConnection)))
        }
    }

    private func reply(_ pdu: ATTPDU) {
        feed.yield(pdu.bytes)
    }
}
