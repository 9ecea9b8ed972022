/// One controller on RootCanal's HCI port, spoken to in raw H4 bytes (Core v5.4 Vol 4
/// Part A 2): commands written by hand in the test, events read back whole. For tests that
/// must hold without the project's HCI module.
final class H4TestLink {
    /// An HCI event (Core v5.4 Vol 4 Part E 5.4.4): code, then its parameters.
    struct Event: Equatable, CustomStringConvertible {
        let code: UInt8
        let parameters: [UInt8]

        /// The event as it came off the wire, H4 indicator included.
        var h4Bytes: [UInt8] { [0x04, code, UInt8(parameters.count)] + parameters }

        var description: String { h4Bytes.hexString }
    }

    /// H4 packet indicators (Core v5.4 Vol 4 Part A 2).
    private enum Indicator {
        static let command: UInt8 = 0x01
        static let acl: UInt8 = 0x02
        static let event: UInt8 = 0x04
        static let iso: UInt8 = 0x05
    }

    private static let commandCompleteCode: UInt8 = 0x0E
    private static let commandStatusCode: UInt8 = 0x0F

    private let socket: LoopbackSocket
    /// Events that arrived while a command waited for its answer, handed out first.
    private var pending: [Event] = []

    var port: UInt16 { socket.port }

    init(port: UInt16) async throws {
        socket = try await LoopbackSocket.connect(toPort: port)
    }

    /// Writes bytes as they are, H4 indicator included; for deliberately malformed packets.
    func send(raw bytes: [UInt8]) throws {
        try socket.send(bytes)
    }

    /// Sends a command and waits for its Command Complete (Core v5.4 Vol 4 Part E 7.7.14).
    /// Returns the return parameters after the status; throws if the status is not success,
    /// if the controller answers with Command Status instead, or on timeout.
    @discardableResult
    func command(
        _ name: String, opcode: UInt16, parameters: [UInt8] = [], timeout: Duration = .seconds(60)
    ) async throws -> [UInt8] {
        // Command packet: opcode (LE16), parameter length, parameters (Vol 4 Part E 5.4.1).
        let packet = [Indicator.command, UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(parameters.count)] + parameters
        try socket.send(packet)

        let deadline = ContinuousClock.now + timeout
        while true {
            let event = try await readEvent(before: deadline, waitingFor: name)
            let answered = event.parameters.count >= 3
            switch event.code {
            case Self.commandCompleteCode where answered && Self.opcode(at: 1, in: event.parameters) == opcode:
                // num_hci_command_packets, opcode (LE16), then return parameters, status first.
                guard let status = event.parameters.dropFirst(3).first else {
                    throw H4TestLinkError("\(name) (0x\(opcode.hex)): Command Complete without a status: \(event)")
                }
                guard status == 0 else {
                    throw H4TestLinkError("\(name) (0x\(opcode.hex)) failed with status 0x\(status.hex): \(event)")
                }
                return Array(event.parameters.dropFirst(4))
            case Self.commandStatusCode where answered && Self.opcode(at: 2, in: event.parameters) == opcode:
                // status, num_hci_command_packets, opcode (LE16) (Vol 4 Part E 7.7.15).
                throw H4TestLinkError(
                    "\(name) (0x\(opcode.hex)) answered with Command Status 0x\(event.parameters[0].hex) "
                        + "instead of Command Complete: \(event)")
            default:
                pending.append(event)
            }
        }
    }

    /// The next event from the controller, or a throw if none arrives within `timeout`.
    func nextEvent(within timeout: Duration) async throws -> Event {
        if !pending.isEmpty { return pending.removeFirst() }
        return try await readEvent(before: ContinuousClock.now + timeout, waitingFor: "an event")
    }

    func close() {
        socket.close()
    }

    private func readEvent(before deadline: ContinuousClock.Instant, waitingFor what: String) async throws -> Event {
        do {
            while true {
                let indicator = try await socket.receive(exactly: 1, before: deadline)[0]
                switch indicator {
                case Indicator.event:
                    let header = try await socket.receive(exactly: 2, before: deadline)
                    let parameters = try await socket.receive(exactly: Int(header[1]), before: deadline)
                    return Event(code: header[0], parameters: parameters)
                case Indicator.acl, Indicator.iso:
                    // Handle (LE16), then data length (LE16; ISO: 14 bits). None is expected
                    // here, but skipping keeps the stream framed.
                    let header = try await socket.receive(exactly: 4, before: deadline)
                    let length = (Int(header[2]) | Int(header[3]) << 8) & (indicator == Indicator.iso ? 0x3FFF : 0xFFFF)
                    _ = try await socket.receive(exactly: length, before: deadline)
                default:
                    throw H4TestLinkError("unexpected H4 packet indicator 0x\(indicator.hex): the stream is out of step")
                }
            }
        } catch let error as LoopbackSocketError {
            throw H4TestLinkError("waiting for \(what): \(error)")
        }
    }

    private static func opcode(at offset: Int, in parameters: [UInt8]) -> UInt16? {
        guard parameters.count >= offset + 2 else { return nil }
        return UInt16(parameters[offset]) | UInt16(parameters[offset + 1]) << 8
    }
}

struct H4TestLinkError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
