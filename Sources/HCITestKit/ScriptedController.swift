import BeaconCore
import ClockTestKit
import HCI
import Synchronization

/// A controller played by a test, on the far end of an in-memory link: it records every
/// command the host sends and, unless told otherwise, answers it at once the way a
/// Bluetooth 5 controller would, with values from its configuration. Tests make it refuse
/// chosen commands, leave some unanswered, answer by hand, send events of their own, or
/// drop the link.
///
/// Give `hostEnd` to the code under test (`HostController(transport: controller.hostEnd)`).
public final class ScriptedController: Sendable {
    public struct Configuration: Sendable {
        public var version = BluetoothCoreVersion.v5_3
        public var companyIdentifier: UInt16 = 0x00E0
        public var address = BluetoothAddress(value: 0x00_1A_7D_DA_71_13) ?? .zero
        public var features: LEFeatures = [.extendedAdvertising, .le2MPhy, .leCodedPhy]
        public var advertisingSets: UInt8 = 16
        public var maximumAdvertisingDataLength: UInt16 = 1650
        /// What LE Read Advertising Physical Channel Tx Power answers.
        public var legacyTxPower: Int8 = -10
        /// What LE Set Extended Advertising Parameters selects; `nil` gives what was asked.
        public var selectedTxPower: Int8? = -10
        /// Whether Read Local Supported Commands lists LE Read Transmit Power.
        public var supportsReadTransmitPower = false
        /// What LE Read Transmit Power answers.
        public var transmitPowerRange = LEReadTransmitPower.ReturnParameters(minimum: -20, maximum: 4)
        /// Commands answered with a failure status instead of success.
        public var refusals: [HCIOpcode: HCIStatus] = [:]
        /// Commands received but never answered, as a hung controller does.
        public var unanswered: Set<HCIOpcode> = []
        /// `false`: nothing is answered by itself; the test takes each command with
        /// `nextCommand()` and answers it with `complete(_:)` (host-controller protocol tests).
        public var answersAutomatically = true
        /// What LE Read Buffer Size answers: the LE ACL packet length and count.
        public var leBufferSize = LEReadBufferSize.ReturnParameters(aclDataPacketLength: 27, totalACLDataPackets: 4)
        /// What Read Buffer Size answers (used when the LE answer is zeros).
        public var sharedBufferSize = ReadBufferSize.ReturnParameters(aclDataPacketLength: 1021, totalACLDataPackets: 8)

        public init() {}

        /// A controller that answers nothing by itself.
        public static var manual: Configuration {
            var configuration = Configuration()
            configuration.answersAutomatically = false
            return configuration
        }
    }

    /// Return parameters (status first) that replace the automatic answer to a command;
    /// `nil` keeps the automatic one.
    public typealias AnswerOverride = @Sendable (HCICommandPacket) -> [UInt8]?

    /// The host end, for the code under test.
    public let hostEnd: InMemoryHCITransport
    private let controllerEnd: InMemoryHCITransport
    private let configuration: Mutex<Configuration>
    private let override: AnswerOverride?
    private let received = RecordedLog<HCICommandPacket>()
    private let receivedACL = RecordedLog<ACLDataPacket>()
    /// How many commands `nextCommand()` has handed out.
    private let taken = Mutex(0)

    /// `name` is the host end's name, as messages show it (often a transport spec, so that
    /// the code under test treats the link as that kind of controller).
    public init(name: String = "memory", configuration: Configuration = Configuration(), answer override: AnswerOverride? = nil) {
        let (host, controller) = InMemoryHCITransport.pair(name: name)
        hostEnd = host
        controllerEnd = controller
        self.configuration = Mutex(configuration)
        self.override = override
        let incoming = controller.incoming
        Task { [self] in
            do {
                for try await packet in incoming {
                    if packet.type == .acl, let acl = try? ACLDataPacket(packet: packet) {
                        receivedACL.append(acl)
                        continue
                    }
                    guard let command = try? HCICommandPacket(packet: packet) else { continue }
                    received.append(command)
                    guard let answer = try? answer(to: command) else { continue }
                    try? await controllerEnd.send(answer)
                }
            } catch {
                return  // the link was dropped
            }
        }
    }

    // MARK: What the host sent

    /// Every command received so far, in order.
    public var commands: [HCICommandPacket] { received.elements }
    public var opcodes: [HCIOpcode] { commands.map(\.opcode) }

    /// The parameters of the received commands with `opcode`, in order.
    public func parameters(of opcode: HCIOpcode) -> [[UInt8]] {
        commands.filter { $0.opcode == opcode }.map { Array($0.parameters) }
    }

    /// Waits until `condition` holds for the commands received: resumes when the command
    /// that makes it hold arrives.
    @discardableResult
    public func waitForCommands(
        _ description: String = "the expected commands",
        until condition: @escaping @Sendable ([HCICommandPacket]) -> Bool
    ) async throws -> [HCICommandPacket] {
        try await received.wait(for: description, until: condition)
    }

    /// Waits until `opcode` has been received `count` times.
    public func waitFor(_ opcode: HCIOpcode, count: Int = 1) async throws {
        try await waitForCommands("\(opcode) received \(count) time(s)") { commands in
            commands.filter { $0.opcode == opcode }.count >= count
        }
    }

    /// The next command not yet taken by this method, in the order received (waits for it).
    public func nextCommand() async throws -> HCICommandPacket {
        let index = taken.withLock { count in
            defer { count += 1 }
            return count
        }
        let commands = try await received.wait(for: "command #\(index + 1) from the host") { $0.count > index }
        return commands[index]
    }

    /// Every ACL data packet the host sent, in order.
    public var aclPackets: [ACLDataPacket] { receivedACL.elements }

    /// Waits until `count` ACL data packets have arrived from the host; returns them all.
    @discardableResult
    public func waitForACL(count: Int) async throws -> [ACLDataPacket] {
        try await receivedACL.wait(for: "\(count) ACL data packet(s) from the host") { $0.count >= count }
    }

    // MARK: Steering

    public func refuse(_ opcode: HCIOpcode, with status: HCIStatus) {
        configuration.withLock { $0.refusals[opcode] = status }
    }

    /// From now on, receives `opcode` but never answers it.
    public func leaveUnanswered(_ opcode: HCIOpcode) {
        configuration.withLock { _ = $0.unanswered.insert(opcode) }
    }

    /// Sends an event of the test's choosing to the host.
    public func send(_ event: HCIEvent) async throws {
        try await controllerEnd.send(try event.packet())
    }

    /// Sends any packet to the host, well-formed or not.
    public func send(_ packet: HCIPacket) async throws {
        try await controllerEnd.send(packet)
    }

    /// Sends raw event bytes (code, length, parameters), however malformed.
    public func send(rawEvent body: [UInt8]) async throws {
        try await controllerEnd.send(HCIPacket(type: .event, body: body))
    }

    /// Command Complete with success and `value` for `Command`.
    public func complete<Command: HCICommand>(
        _ command: Command.Type, credits: UInt8 = 1, returning value: Command.ReturnParameters
    ) async throws {
        try await send(.commandComplete(.init(numHCICommandPackets: credits, answering: command, returnParameters: value)))
    }

    /// Command Complete with success for a command without return parameters.
    public func complete<Command: HCICommand>(_ command: Command.Type, credits: UInt8 = 1) async throws
    where Command.ReturnParameters == Void {
        try await send(.commandComplete(.init(numHCICommandPackets: credits, answering: command)))
    }

    /// A Command Complete with opcode 0x0000: only sets the host's command credits.
    public func grantCredits(_ credits: UInt8) async throws {
        try await send(.commandComplete(.init(numHCICommandPackets: credits, opcode: .nop, returnParameters: [])))
    }

    /// Cuts the link as a failing transport would: the host's `incoming` ends with `error`
    /// (a connection reset by default).
    public func dropLink(with error: HCITransportError? = nil) {
        controllerEnd.drop(with: error ?? HCITransportError(.ioFailure, "\(hostEnd.name): connection reset by peer"))
    }

    /// Closes the link from the controller's side, as a controller that goes away cleanly.
    public func closeLink() async {
        await controllerEnd.close()
    }

    // MARK: Answers

    /// The automatic answer to `command`, or `nil` when it is to stay unanswered.
    private func answer(to command: HCICommandPacket) throws -> HCIPacket? {
        let configuration = configuration.withLock { $0 }
        guard configuration.answersAutomatically, !configuration.unanswered.contains(command.opcode) else { return nil }
        if let status = configuration.refusals[command.opcode] {
            return try HCIEvent.commandComplete(
                .init(numHCICommandPackets: 1, opcode: command.opcode, returnParameters: [status.rawValue])
            ).packet()
        }
        if let parameters = override?(command) {
            return try HCIEvent.commandComplete(
                .init(numHCICommandPackets: 1, opcode: command.opcode, returnParameters: parameters)
            ).packet()
        }
        if Self.answeredByStatus.contains(command.opcode) {
            return try HCIEvent.commandStatus(.init(status: .success, numHCICommandPackets: 1, opcode: command.opcode)).packet()
        }
        let complete: HCIEvent.CommandComplete
        switch command.opcode {
        case .readLocalVersionInformation:
            complete = .init(
                answering: ReadLocalVersionInformation.self,
                returnParameters: .init(
                    hciVersion: configuration.version, hciSubversion: 0x0100, lmpVersion: configuration.version,
                    companyIdentifier: configuration.companyIdentifier, lmpSubversion: 0x0200))
        case .readBDADDR:
            complete = .init(answering: ReadBDADDR.self, returnParameters: configuration.address)
        case .leReadLocalSupportedFeatures:
            complete = .init(answering: LEReadLocalSupportedFeatures.self, returnParameters: configuration.features)
        case .leReadNumberOfSupportedAdvertisingSets:
            complete = .init(answering: LEReadNumberOfSupportedAdvertisingSets.self, returnParameters: configuration.advertisingSets)
        case .leReadMaximumAdvertisingDataLength:
            complete = .init(
                answering: LEReadMaximumAdvertisingDataLength.self,
                returnParameters: configuration.maximumAdvertisingDataLength)
        case .leReadAdvertisingPhysicalChannelTxPower:
            complete = .init(answering: LEReadAdvertisingPhysicalChannelTxPower.self, returnParameters: configuration.legacyTxPower)
        case .readLocalSupportedCommands:
            var octets = [UInt8](repeating: 0xFF, count: SupportedCommands.octetCount)
            if !configuration.supportsReadTransmitPower {
                let bit = LEReadTransmitPower.supportedCommandsBit
                octets[bit.octet] &= ~(1 << bit.bit)
            }
            complete = .init(answering: ReadLocalSupportedCommands.self, returnParameters: SupportedCommands(octets: octets))
        case .leSetExtendedAdvertisingParameters:
            let parameters = try command.decode(as: LESetExtendedAdvertisingParameters.self)
            complete = .init(
                answering: LESetExtendedAdvertisingParameters.self,
                returnParameters: configuration.selectedTxPower ?? parameters.txPower ?? 0)
        case .leReadBufferSize:
            complete = .init(answering: LEReadBufferSize.self, returnParameters: configuration.leBufferSize)
        case .readBufferSize:
            complete = .init(answering: ReadBufferSize.self, returnParameters: configuration.sharedBufferSize)
        case .leReadTransmitPower:
            complete = .init(answering: LEReadTransmitPower.self, returnParameters: configuration.transmitPowerRange)
        default:
            complete = .init(numHCICommandPackets: 1, opcode: command.opcode, returnParameters: [HCIStatus.success.rawValue])
        }
        return try HCIEvent.commandComplete(complete).packet()
    }

    /// Commands whose acceptance comes in Command Status (their result in a later event,
    /// which the test sends itself).
    static let answeredByStatus: Set<HCIOpcode> = [
        .leCreateConnection, .leExtendedCreateConnection, .disconnect, .leConnectionUpdate,
    ]
}
