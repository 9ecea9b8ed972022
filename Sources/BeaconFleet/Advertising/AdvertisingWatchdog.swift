import HCI
import Logging

/// Watches a controller's events while beacons are on the air and says when they are not
/// any more: Hardware Error, a Reset nobody here sent, an advertising set the controller
/// ended, another program clearing every set, or the link going away. Another program's other
/// advertising commands on a shared controller are reported as warnings, once per command.
struct AdvertisingWatchdog: Sendable {
    let session: AdvertisingSession
    let ledger: CommandLedger
    let logger: Logger

    /// Commands that change advertising: seen from someone else, they may have taken the
    /// beacons off the air (Core v5.4 Vol 4 Part E 7.8.4–7.8.9, 7.8.52–7.8.60).
    static let advertisingOpcodes: Set<HCIOpcode> = [
        .leSetRandomAddress, .leSetAdvertisingParameters, .leSetAdvertisingData, .leSetAdvertisingEnable,
        .leSetAdvertisingSetRandomAddress, .leSetExtendedAdvertisingParameters, .leSetExtendedAdvertisingData,
        .leSetExtendedAdvertisingEnable, .leRemoveAdvertisingSet, .leClearAdvertisingSets,
    ]

    /// Returns the first fault, or `nil` when the stream ends without one (the task was
    /// cancelled, or this program closed the controller).
    func watch(_ events: AsyncStream<HostControllerEvent>, warn: @Sendable (String) -> Void) async -> AdvertisingFault? {
        let name = session.controller.name
        var reportedForeign: Set<HCIOpcode> = []
        for await element in events {
            switch element {
            case .event(.hardwareError(let code)):
                return .hardwareError(controller: name, code: code)
            case .unsolicitedReset:
                return .unsolicitedReset(controller: name)
            case .event(.le(.advertisingSetTerminated(let terminated))):
                if let beacon = session.beacons.first(where: { $0.handle == terminated.handle }) {
                    return .advertisingSetTerminated(
                        controller: name, handle: terminated.handle, beacon: beacon.request.label,
                        status: terminated.status)
                }
            case .transportEnded(let error?):
                return .transportEnded(error)
            case .transportEnded(nil):
                return nil
            case .event(.commandComplete(let complete)):
                guard isForeign(complete.opcode) else { continue }
                if complete.opcode == .leClearAdvertisingSets, complete.returnParameters.first == HCIStatus.success.rawValue {
                    // Unlike the other commands, this one removed our sets for certain.
                    return .advertisingSetsCleared(controller: name)
                }
                warnOnce(about: complete.opcode, reported: &reportedForeign, warn: warn)
            case .event(.commandStatus(let status)):
                if isForeign(status.opcode) { warnOnce(about: status.opcode, reported: &reportedForeign, warn: warn) }
            case .malformedPacket(_, let error):
                logger.warning("\(name): skipped a packet from the controller that could not be read: \(error)")
            default:
                continue
            }
        }
        return nil
    }

    /// Whether an answer is to another program's command (consumes the ledger's claim when ours).
    private func isForeign(_ opcode: HCIOpcode) -> Bool {
        opcode != .nop && !ledger.claimAnswer(opcode)
    }

    /// Warns about another program's advertising command, once per opcode.
    private func warnOnce(about opcode: HCIOpcode, reported: inout Set<HCIOpcode>, warn: @Sendable (String) -> Void) {
        guard Self.advertisingOpcodes.contains(opcode), reported.insert(opcode).inserted else { return }
        let controller = session.controller
        var message = "\(controller.name): another program sent \(opcode.displayName) to this controller while "
            + "beaconctl advertises; if it changed or stopped advertising, beacons may be off the air"
        if case .sharedWithKernel(let index) = controller.access {
            message += ". Usually bluetoothd: stop its advertising, or use hci-user:\(index) to have the controller to yourself"
        }
        warn(message)
    }
}
