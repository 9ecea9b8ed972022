import BeaconCore
import HCI
import Synchronization
import Testing

@testable import BeaconFleet

/// A controller played by the test: it answers every command the host sends (success by
/// default, or what `answer` says), records them in order, and sends whatever events the
/// test pushes. Runs on the controller end of an `InMemoryHCITransport` pair.
final class ScanTestController: Sendable {
    let host: HostController
    let hostTransport: InMemoryHCITransport
    private let controllerEnd: InMemoryHCITransport
    private let received = RecordedLog<HCIPacket>()
    private let features: LEFeatures
    /// Returns the Command Complete return parameters (status first) for an opcode, or
    /// `nil` for the default answer.
    private let answer: @Sendable (HCIOpcode) -> [UInt8]?
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(
        features: LEFeatures = [], name: String = "memory",
        answer: @escaping @Sendable (HCIOpcode) -> [UInt8]? = { _ in nil }
    ) {
        let (hostEnd, controllerEnd) = InMemoryHCITransport.pair(name: name)
        self.hostTransport = hostEnd
        self.controllerEnd = controllerEnd
        self.features = features
        self.answer = answer
        // Every command is answered at once: the timeout is a safety net only.
        self.host = HostController(transport: hostEnd, defaultTimeout: generousCommandTimeout)
        let reader = Task { [controllerEnd, weak self] in
            do {
                for try await packet in controllerEnd.incoming {
                    guard let self else { return }
                    await self.handle(packet)
                }
            } catch {}
        }
        task.withLock { $0 = reader }
    }

    deinit {
        task.withLock { $0?.cancel() }
    }

    /// The commands received so far, by opcode, in order.
    var opcodes: [HCIOpcode] { Self.opcodes(in: received.elements) }

    private static func opcodes(in packets: [HCIPacket]) -> [HCIOpcode] {
        packets.compactMap { packet in
            guard packet.body.count >= 2 else { return nil }
            return HCIOpcode(rawValue: UInt16(packet.body[0]) | UInt16(packet.body[1]) << 8)
        }
    }

    /// The parameters of the received commands with `opcode`, in order.
    func parameters(of opcode: HCIOpcode) -> [[UInt8]] {
        received.elements
            .filter { $0.body.count >= 3 && UInt16($0.body[0]) | UInt16($0.body[1]) << 8 == opcode.rawValue }
            .map { Array($0.body.dropFirst(3)) }
    }

    /// Sends an event packet to the host.
    func send(_ event: HCIEvent) async throws {
        try await controllerEnd.send(event.packet())
    }

    /// Sends raw event bytes (code, length, parameters), however malformed.
    func send(rawEvent body: [UInt8]) async throws {
        try await controllerEnd.send(HCIPacket(type: .event, body: body))
    }

    /// Waits until `opcode` has been received `count` times: resumes when the last of them
    /// arrives.
    func waitFor(_ opcode: HCIOpcode, count: Int = 1) async throws {
        try await received.wait(for: "\(opcode) received \(count) time(s)") { packets in
            Self.opcodes(in: packets).filter { $0 == opcode }.count >= count
        }
    }

    private func handle(_ packet: HCIPacket) async {
        guard packet.type == .command, packet.body.count >= 3 else { return }
        received.append(packet)
        let opcode = HCIOpcode(rawValue: UInt16(packet.body[0]) | UInt16(packet.body[1]) << 8)
        var returnParameters = answer(opcode) ?? [HCIStatus.success.rawValue]
        if answer(opcode) == nil, opcode == LEReadLocalSupportedFeatures.opcode {
            LEReadLocalSupportedFeatures.encodeReturnParameters(features, into: &returnParameters)
        }
        let complete = HCIEvent.commandComplete(.init(numHCICommandPackets: 1, opcode: opcode, returnParameters: returnParameters))
        try? await send(complete)
    }
}

struct ScanTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Bytes from hex such as `"02 01 06"`; whitespace ignored.
func bytes(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace })
    return stride(from: 0, to: digits.count - 1, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16) ?? 0xEE }
}

func bluetoothAddress(_ text: String) throws -> BluetoothAddress {
    guard let address = BluetoothAddress(text) else { throw ScanTestFailure("bad address \(text)") }
    return address
}

/// The iBeacon of RootCanal's smoke test: UUID 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3,
/// major 1, minor 2, measured power −59 dBm.
let testIBeaconData = bytes("02 01 06 1A FF 4C 00 02 15 89 D6 E9 36 F6 1F 42 27 BC D2 6E 94 C5 A6 B2 E3 00 01 00 02 C5")
let testUUID = ProximityUUID(high: 0x89D6_E936_F61F_4227, low: 0xBCD2_6E94_C5A6_B2E3)
