import BeaconCore
import HCI
import Synchronization

/// A tiny controller on the far end of an in-memory link: records every command the host
/// sends and answers it the way a Bluetooth 5 controller would, with values from its
/// configuration. Tests make it refuse chosen commands and send events of their own.
final class ScriptedController: Sendable {
    struct Configuration: Sendable {
        var version = BluetoothCoreVersion.v5_3
        var companyIdentifier: UInt16 = 0x00E0
        var address = BluetoothAddress(value: 0x00_1A_7D_DA_71_13) ?? .zero
        var features: LEFeatures = [.extendedAdvertising, .le2MPhy, .leCodedPhy]
        var advertisingSets: UInt8 = 16
        var maximumAdvertisingDataLength: UInt16 = 1650
        /// What LE Read Advertising Physical Channel Tx Power answers.
        var legacyTxPower: Int8 = -10
        /// What LE Set Extended Advertising Parameters selects; `nil` gives what was asked.
        var selectedTxPower: Int8? = -10
        /// Whether Read Local Supported Commands lists LE Read Transmit Power.
        var supportsReadTransmitPower = false
        /// Commands answered with a failure status instead of success.
        var refusals: [HCIOpcode: HCIStatus] = [:]
        /// Commands received but never answered, as a hung controller does.
        var unanswered: Set<HCIOpcode> = []
    }

    /// The host end, for the code under test.
    let hostEnd: InMemoryHCITransport
    private let controllerEnd: InMemoryHCITransport
    private let state: Mutex<State>
    private let received = RecordedLog<HCICommandPacket>()

    private struct State {
        var configuration: Configuration
    }

    init(name: String = "tcp-client:127.0.0.1:6402", configuration: Configuration = Configuration()) {
        let (host, controller) = InMemoryHCITransport.pair(name: name)
        hostEnd = host
        controllerEnd = controller
        state = Mutex(State(configuration: configuration))
        let incoming = controller.incoming
        Task { [self] in
            do {
                for try await packet in incoming {
                    guard let command = try? HCICommandPacket(packet: packet) else { continue }
                    let answers = state.withLock { !$0.configuration.unanswered.contains(command.opcode) }
                    received.append(command)
                    if answers { try? await controllerEnd.send(try answer(to: command)) }
                }
            } catch {
                return  // the link was dropped
            }
        }
    }

    /// Every command received so far, in order.
    var commands: [HCICommandPacket] { received.elements }
    var opcodes: [HCIOpcode] { commands.map(\.opcode) }

    func refuse(_ opcode: HCIOpcode, with status: HCIStatus) {
        state.withLock { $0.configuration.refusals[opcode] = status }
    }

    /// From now on, receives `opcode` but never answers it.
    func leaveUnanswered(_ opcode: HCIOpcode) {
        state.withLock { _ = $0.configuration.unanswered.insert(opcode) }
    }

    /// Sends an event of the test's choosing to the host.
    func send(_ event: HCIEvent) async throws {
        try await controllerEnd.send(try event.packet())
    }

    /// Cuts the link as a failing transport would.
    func dropLink() {
        controllerEnd.drop(with: HCITransportError(.ioFailure, "\(hostEnd.name): connection reset by peer"))
    }

    /// Waits until `condition` holds for the commands received: resumes when the command
    /// that makes it hold arrives.
    @discardableResult
    func waitForCommands(
        _ description: String = "the expected commands",
        until condition: @escaping @Sendable ([HCICommandPacket]) -> Bool
    ) async throws -> [HCICommandPacket] {
        try await received.wait(for: description, until: condition)
    }

    private func answer(to command: HCICommandPacket) throws -> HCIPacket {
        let configuration = state.withLock { $0.configuration }
        if let status = configuration.refusals[command.opcode] {
            return try HCIEvent.commandComplete(.init(numHCICommandPackets: 1, opcode: command.opcode, returnParameters: [status.rawValue])).packet()
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
            if !configuration.supportsReadTransmitPower { octets[38] &= 0x7F }
            complete = .init(answering: ReadLocalSupportedCommands.self, returnParameters: SupportedCommands(octets: octets))
        case .leSetExtendedAdvertisingParameters:
            let parameters = try command.decode(as: LESetExtendedAdvertisingParameters.self)
            complete = .init(
                answering: LESetExtendedAdvertisingParameters.self,
                returnParameters: configuration.selectedTxPower ?? parameters.txPower ?? 0)
        case HCIOpcode(rawValue: 0x204B):
            // LE Read Transmit Power: status, Min_TX_Power, Max_TX_Power.
            complete = .init(numHCICommandPackets: 1, opcode: command.opcode, returnParameters: [0x00, 0xEC, 0x04])
        default:
            complete = .init(numHCICommandPackets: 1, opcode: command.opcode, returnParameters: [HCIStatus.success.rawValue])
        }
        return try HCIEvent.commandComplete(complete).packet()
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
