import BeaconCore
import HCI

/// The events of connections, as the virtual controller words them.
enum ConnectionEvents {
    /// Command Status with one command credit (Core v5.4 Vol 4 Part E 7.7.15): how Create
    /// Connection and Disconnect are answered.
    static func commandStatus(_ status: HCIStatus, _ opcode: HCIOpcode) -> HCIPacket? {
        try? HCIEvent.commandStatus(HCIEvent.CommandStatus(status: status, numHCICommandPackets: 1, opcode: opcode)).packet()
    }

    /// LE Enhanced Connection Complete when the host unmasked it, else LE Connection
    /// Complete when that is unmasked, else nothing (Core v5.4 Vol 4 Part E 7.7.65.1 and
    /// 7.7.65.10: the enhanced event replaces the other when both are unmasked).
    static func connectionComplete(_ complete: LEConnectionComplete, for controller: ControllerState) -> HCIPacket? {
        var event = complete
        if controller.allows(.enhancedConnectionComplete) {
            event.isEnhanced = true
        } else if controller.allows(.connectionComplete) {
            event.isEnhanced = false
        } else {
            return nil
        }
        return try? HCIEvent.le(.connectionComplete(event)).packet()
    }

    /// Disconnection Complete (7.7.5), when Set Event Mask lets it through.
    static func disconnectionComplete(handle: UInt16, reason: HCIStatus, for controller: ControllerState) -> HCIPacket? {
        guard controller.eventMask.contains(.disconnectionComplete) else { return nil }
        return try? HCIEvent.disconnectionComplete(HCIEvent.DisconnectionComplete(status: .success, connectionHandle: handle, reason: reason))
            .packet()
    }

    /// Number Of Completed Packets (7.7.19) for one packet of `handle`, sent whatever the
    /// event mask says: a host's ACL flow control depends on it.
    static func completedPacket(handle: UInt16) -> HCIPacket? {
        try? HCIEvent.numberOfCompletedPackets(NumberOfCompletedPackets(entries: [
            NumberOfCompletedPackets.Entry(connectionHandle: handle, completedPackets: 1)
        ])).packet()
    }
}
