import HCI
import Logging
import Synchronization

/// Sends one advertising session's commands, turns failures into `AdvertisingError` with
/// what was being done, and keeps a ledger of the answers that are ours.
///
/// The ledger lets the watchdog tell another program's commands on a shared kernel socket:
/// every Command Complete reaches every subscriber, and one for an advertising command this
/// session did not send means someone else is changing the controller's advertising.
struct SessionCommands: Sendable {
    let host: HostController
    let logger: Logger
    let ledger: CommandLedger

    var controllerName: String { host.name }

    /// Sends `command`; a refusal or a missing answer becomes `.command(error, context:)`.
    func send<Command: HCICommand>(_ command: Command, _ context: String) async throws(AdvertisingError) -> Command.ReturnParameters {
        do {
            return try await host.send(command, noting: ledger)
        } catch {
            throw .command(error, context: context)
        }
    }

    /// Sends `command` when taking beacons off the air: a failure is logged, not thrown, so
    /// that the remaining stop commands still go out.
    /// Returns what went wrong (`nil` when the controller acknowledged it).
    @discardableResult
    func sendBestEffort<Command: HCICommand>(_ command: Command) async -> String? where Command.ReturnParameters == Void {
        do {
            try await host.send(command, noting: ledger)
            return nil
        } catch {
            logger.warning("could not complete the stop sequence: \(error.advisedMessage)")
            return error.advisedMessage
        }
    }
}

/// Counts the answers this session expects, per opcode.
final class CommandLedger: Sendable {
    private let expected = Mutex<[HCIOpcode: Int]>([:])

    func willSend(_ opcode: HCIOpcode) {
        expected.withLock { $0[opcode, default: 0] += 1 }
    }

    /// Whether an answer with `opcode` is to one of this session's commands; consumes it.
    func claimAnswer(_ opcode: HCIOpcode) -> Bool {
        expected.withLock { counts in
            guard let count = counts[opcode], count > 0 else { return false }
            counts[opcode] = count - 1
            return true
        }
    }
}

extension HostController {
    /// Sends `command`, first noting in `ledger` (when there is one) that its answer is ours.
    func send<Command: HCICommand>(
        _ command: Command, noting ledger: CommandLedger?, timeout: Duration? = nil
    ) async throws(HCIError) -> Command.ReturnParameters {
        ledger?.willSend(Command.opcode)
        return try await send(command, timeout: timeout)
    }
}
