import ClockTestKit
import HCI
import HCITestKit
import Synchronization
@testable import LECentral

/// A small ATT server for the client's tests, written from Core v5.4 Vol 3 Part F 3.4 and
/// Part G 4: the attributes in a table, the responses filled as the spec says (entries of one
/// length, as many as the MTU holds), its own MTU, and steering for a test (requests left
/// unanswered, values refused).
final class AttributeTable: Sendable {
    struct Attribute: Sendable {
        var handle: UInt16
        var type: AttributeUUID
        var value: [UInt8]
        var writable = true
    }

    private struct State {
        var attributes: [Attribute]
        var mtu = 23
        var serverMTU: UInt16
        var prepared: [(handle: UInt16, offset: Int, part: [UInt8])] = []
        var silent = false
        var corruptEcho = false
    }

    private let state: Mutex<State>

    init(_ attributes: [Attribute], serverMTU: UInt16 = 247) {
        state = Mutex(State(attributes: attributes, serverMTU: serverMTU))
    }

    /// From now on, requests get no response (a hung peripheral).
    func goSilent() { state.withLock { $0.silent = true } }
    /// Prepare Write Responses echo a changed part.
    func corruptEchoes() { state.withLock { $0.corruptEcho = true } }

    func value(at handle: UInt16) -> [UInt8]? {
        state.withLock { state in state.attributes.first { $0.handle == handle }?.value }
    }

    /// The response to one request, `nil` for none (commands, confirmations, silence).
    func answer(_ bytes: [UInt8]) -> [UInt8]? {
        state.withLock { state -> [UInt8]? in
            guard !state.silent, let pdu = try? ATTPDU(bytes: bytes) else { return nil }
            return Self.answer(pdu, state: &state)?.bytes
        }
    }

    private static func answer(_ pdu: ATTPDU, state: inout State) -> ATTPDU? {
        let notFound = { (request: UInt8, handle: UInt16) in ATTPDU.errorResponse(request: request, handle: handle, error: .attributeNotFound) }
        switch pdu {
        case .exchangeMTURequest(let client):
            state.mtu = max(23, Int(min(client, state.serverMTU)))
            return .exchangeMTUResponse(serverMTU: state.serverMTU)
        case .readByGroupTypeRequest(let start, let end, let type):
            let services = state.attributes.filter { $0.type == type && $0.handle >= start && $0.handle <= end }
            guard let first = services.first else { return notFound(pdu.opcode, start) }
            var groups: [ATTPDU.GroupValue] = []
            for service in services where service.value.count == first.value.count {
                guard 2 + (groups.count + 1) * (4 + service.value.count) <= state.mtu else { break }
                let next = state.attributes.first { $0.handle > service.handle && $0.type == type }?.handle
                let last = state.attributes.last { $0.handle < (next ?? 0xFFFF) }?.handle ?? service.handle
                groups.append(.init(handle: service.handle, endGroupHandle: max(last, service.handle), value: service.value))
            }
            return .readByGroupTypeResponse(groups)
        case .readByTypeRequest(let start, let end, let type):
            let found = state.attributes.filter { $0.type == type && $0.handle >= start && $0.handle <= end }
            guard let first = found.first else { return notFound(pdu.opcode, start) }
            var entries: [ATTPDU.HandleValue] = []
            for attribute in found where attribute.value.count == first.value.count {
                guard 2 + (entries.count + 1) * (2 + attribute.value.count) <= state.mtu else { break }
                entries.append(.init(handle: attribute.handle, value: attribute.value))
            }
            return .readByTypeResponse(entries)
        case .findInformationRequest(let start, let end):
            let found = state.attributes.filter { $0.handle >= start && $0.handle <= end }
            guard let first = found.first else { return notFound(pdu.opcode, start) }
            let short = first.type.shortValue != nil
            var entries: [ATTPDU.HandleUUID] = []
            for attribute in found where (attribute.type.shortValue != nil) == short {
                guard 2 + (entries.count + 1) * (short ? 4 : 18) <= state.mtu else { break }
                entries.append(.init(handle: attribute.handle, uuid: attribute.type))
            }
            return .findInformationResponse(entries)
        case .readRequest(let handle):
            guard let attribute = state.attributes.first(where: { $0.handle == handle }) else {
                return .errorResponse(request: pdu.opcode, handle: handle, error: .invalidHandle)
            }
            return .readResponse(value: Array(attribute.value.prefix(state.mtu - 1)))
        case .readBlobRequest(let handle, let offset):
            guard let attribute = state.attributes.first(where: { $0.handle == handle }) else {
                return .errorResponse(request: pdu.opcode, handle: handle, error: .invalidHandle)
            }
            guard Int(offset) <= attribute.value.count else { return .errorResponse(request: pdu.opcode, handle: handle, error: .invalidOffset) }
            return .readBlobResponse(part: Array(attribute.value.dropFirst(Int(offset)).prefix(state.mtu - 1)))
        case .writeRequest(let handle, let value):
            guard let index = state.attributes.firstIndex(where: { $0.handle == handle }) else {
                return .errorResponse(request: pdu.opcode, handle: handle, error: .invalidHandle)
            }
            guard state.attributes[index].writable else { return .errorResponse(request: pdu.opcode, handle: handle, error: .writeNotPermitted) }
            state.attributes[index].value = value
            return .writeResponse
        case .prepareWriteRequest(let handle, let offset, let part):
            state.prepared.append((handle, Int(offset), part))
            return .prepareWriteResponse(handle: handle, offset: offset, part: state.corruptEcho ? part.map { $0 ^ 0xFF } : part)
        case .executeWriteRequest(let write):
            defer { state.prepared.removeAll() }
            if write {
                for (handle, offset, part) in state.prepared {
                    guard let index = state.attributes.firstIndex(where: { $0.handle == handle }) else { continue }
                    var value = state.attributes[index].value
                    if value.count < offset + part.count { value += Array(repeating: 0, count: offset + part.count - value.count) }
                    value.replaceSubrange(offset..<(offset + part.count), with: part)
                    state.attributes[index].value = Array(value.prefix(offset + part.count))
                }
            }
            return .executeWriteResponse
        default:
            return nil
        }
    }
}

/// An ATT bearer joined to an `AttributeTable`: what the client sends is answered at once;
/// the test pushes notifications and indications, and sees the confirmations.
final class TableBearer: ATTBearer {
    let context = "memory: peripheral 00:00:00:00:00:01"
    let incoming: AsyncThrowingStream<[UInt8], any Error>
    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    let table: AttributeTable
    let sent = RecordedLog<[UInt8]>()

    init(table: AttributeTable) {
        self.table = table
        (incoming, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self)
    }

    func send(_ pdu: [UInt8]) async throws(LECentralError) {
        sent.append(pdu)
        if let answer = table.answer(pdu) { continuation.yield(answer) }
    }

    /// A PDU from the server of the test's choosing.
    func push(_ pdu: ATTPDU) {
        continuation.yield(pdu.bytes)
    }

    func drop(reason: HCIStatus) {
        continuation.finish(throwing: LECentralError(context: context, kind: .disconnected(reason: reason)))
    }
}
