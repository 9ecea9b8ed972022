import HCI

/// A controller on an air: its slot, in the order controllers joined (0 for the first).
public struct VirtualControllerID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let slot: Int

    public init(slot: Int) {
        self.slot = slot
    }

    public var description: String { "controller \(slot + 1)" }

    public static func < (lhs: VirtualControllerID, rhs: VirtualControllerID) -> Bool {
        lhs.slot < rhs.slot
    }
}

/// One packet the air handed to a host, with the air time it was sent at: the record that
/// makes runs comparable (same seed, same deliveries, same times).
public struct AirDelivery: Hashable, Sendable {
    public var time: AirTime
    public var controller: VirtualControllerID
    public var packet: HCIPacket

    public init(time: AirTime, controller: VirtualControllerID, packet: HCIPacket) {
        self.time = time
        self.controller = controller
        self.packet = packet
    }
}

/// Counters of what happened on an air since it was created.
public struct AirStatistics: Hashable, Sendable {
    /// Advertising events started (each sends one PDU per channel of its channel map).
    public var advertisingEvents = 0
    public var transmittedPDUs = 0
    /// PDUs a listening scanner received above its sensitivity (before duplicate filtering).
    public var receivedPDUs = 0
    /// PDUs a scanner was listening for but lost (packet loss, or below sensitivity).
    public var lostPDUs = 0
    public var duplicatesFiltered = 0
    /// Reports not sent because the host masked their event.
    public var maskedReports = 0
    /// Every packet handed to a host: command answers, reports, other events.
    public var deliveredPackets = 0
    public var commandsHandled = 0
    /// Connections made (an initiator heard its peer's connectable PDU).
    public var connectionsMade = 0
    /// ACL packets carried over links, either way.
    public var aclPackets = 0
    /// ACL packets dropped: no link on their handle, or longer than the buffers.
    public var droppedACLPackets = 0

    public init() {}
}
