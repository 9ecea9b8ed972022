import BeaconCore
import HCI
import LECentral
import Synchronization

@testable import BeaconProfiles

/// An in-memory KBeacon for the profile's failure paths: a GATT server with service 0xFEA0
/// (0xFEA1 written, 0xFEA2 notified, its Client Characteristic Configuration) at ATT MTU 23,
/// answering the authentication of the vendor's SDK for the factory password, and a script
/// for what it notifies after each JSON part. Interoperation with an independent beacon is
/// the RootCanal tests' job; this one misbehaves on purpose.
final class ScriptedKBeacon: ATTBearer, Sendable {
    /// What the beacon does after a JSON part from the central.
    enum Behaviour: Sendable {
        /// Asks for the next part as the SDK does, then refuses the message with `cause`.
        case refuse(cause: UInt16)
        /// Asks for offset 0 again after the first part: no progress.
        case askBackwards
        /// Hangs up when the first part arrives.
        case hangUp
    }

    static let address = BluetoothAddress("F0:4C:0A:00:00:77") ?? .zero
    let context = "scripted: peripheral F0:4C:0A:00:00:77"
    let incoming: AsyncThrowingStream<[UInt8], any Error>
    private let feed: AsyncThrowingStream<[UInt8], any Error>.Continuation
    private let behaviour: Behaviour
    private let answersAuthentication: Bool
    private let state = Mutex<(beaconRandom: [UInt8], received: Int)>(([9, 8, 7, 6], 0))

    init(behaviour: Behaviour, answersAuthentication: Bool = true) {
        (incoming, feed) = AsyncThrowingStream.makeStream(of: [UInt8].self)
        self.behaviour = behaviour
        self.answersAuthentication = answersAuthentication
    }

    func send(_ bytes: [UInt8]) async throws(LECentralError) {
        guard let pdu = try? ATTPDU(bytes: bytes) else { return }
        let notFound = { (request: UInt8, handle: UInt16) in ATTPDU.errorResponse(request: request, handle: handle, error: .attributeNotFound) }
        switch pdu {
        case .exchangeMTURequest:
            reply(.exchangeMTUResponse(serverMTU: 23))
        case .readByGroupTypeRequest(let start, _, _):
            reply(start <= 1 ? .readByGroupTypeResponse([.init(handle: 1, endGroupHandle: 6, value: [0xA0, 0xFE])]) : notFound(pdu.opcode, start))
        case .readByTypeRequest(let start, _, _):
            let declarations: [ATTPDU.HandleValue] = [
                .init(handle: 2, value: [0x08, 0x03, 0x00, 0xA1, 0xFE]), .init(handle: 4, value: [0x10, 0x05, 0x00, 0xA2, 0xFE]),
            ].filter { $0.handle >= start }
            reply(declarations.isEmpty ? notFound(pdu.opcode, start) : .readByTypeResponse(declarations))
        case .findInformationRequest(let start, let end):
            reply(start <= 6 && end >= 6 ? .findInformationResponse([.init(handle: 6, uuid: .clientCharacteristicConfiguration)]) : notFound(pdu.opcode, start))
        case .writeRequest(let handle, let value):
            reply(.writeResponse)
            if handle == 3 { respond(to: value) }
        default:
            reply(.errorResponse(request: pdu.opcode, handle: 0, error: .requestNotSupported))
        }
    }

    private func reply(_ pdu: ATTPDU) {
        feed.yield(pdu.bytes)
    }

    private func notify(_ value: [UInt8]) {
        reply(.handleValueNotification(handle: 5, value: value))
    }

    private func respond(to frame: [UInt8]) {
        guard let head = frame.first else { return }
        switch (head >> 4, frame.count > 1 ? frame[1] : 0) {
        case (1, 0x01) where answersAuthentication:
            // MTU 23: the folded challenge (KBAuthHandler: 0x0B, 8 bytes).
            let random = Array(frame[2..<6])
            let beaconRandom = state.withLock { $0.beaconRandom }
            let proof = KBeaconAuthentication.proof(address: Self.address, random: random, password: KBeaconProfile.factoryPassword, folded: true) ?? []
            notify([0x13, 0x0B] + beaconRandom + proof)
        case (1, 0x0C):
            notify([0x13, 0x02, 23])
        case (2, _):
            let place = head & 0x0F
            let received = state.withLock { state -> Int in
                state.received = place == 0 || place == 3 ? frame.count - 3 : state.received + frame.count - 3
                return state.received
            }
            switch behaviour {
            case .hangUp:
                feed.finish(throwing: LECentralError(context: context, kind: .disconnected(reason: .remoteUserTerminatedConnection)))
            case .askBackwards:
                notify([0x23, 0x00, 0x00, 0x03, 0xE8, 0x00, 0x04])
            case .refuse(let cause):
                if place == 0 || place == 1 {
                    notify([0x23, UInt8(received >> 8), UInt8(received & 0xFF), 0x03, 0xE8, 0x00, 0x04])
                } else {
                    notify([0x23, 0x00, 0x00, 0x03, 0xE8, UInt8(cause >> 8), UInt8(cause & 0xFF)])
                }
            }
        default:
            break
        }
    }
}
