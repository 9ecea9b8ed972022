import BeaconCore
import HCI

/// A device on the air that has no HCI host: its own program (a battery beacon's firmware)
/// decides what its controller advertises and answers what a central sends over a link.
///
/// The air calls it under its lock, at air time, and never concurrently: it must answer at
/// once and keep no wall-clock state. Everything it returns happens at the same air time.
public protocol VirtualPeripheral: Sendable {
    /// What it advertises while no central is connected; `nil`: nothing. Read when it joins
    /// the air and again after each link ends (a beacon shows what a central wrote once the
    /// central has gone).
    var advertising: VirtualPeripheralAdvertising? { get }

    /// A central connected: its controller stopped advertising (Core v5.4 Vol 6 Part B 4.5.1).
    mutating func connected(handle: UInt16, central: BluetoothAddress, at time: AirTime)

    /// One ACL fragment from the central (Host-to-controller boundary flags as sent). What
    /// it returns goes back to the central in order: ACL fragments for `handle`, and at most
    /// one disconnection.
    mutating func received(_ fragment: ACLDataPacket, at time: AirTime) -> VirtualPeripheralReply

    /// The link ended, with the reason the peripheral's side learns.
    mutating func disconnected(handle: UInt16, reason: HCIStatus, at time: AirTime)
}

/// Legacy advertising of a ``VirtualPeripheral``: what a battery beacon sends.
public struct VirtualPeripheralAdvertising: Hashable, Sendable {
    /// AD structures, at most 31 bytes (a legacy PDU's room, Core v5.4 Vol 6 Part B 2.3.1.1).
    public var data: [UInt8]
    public var interval: AdvertisingInterval
    /// ADV_IND when true, else ADV_NONCONN_IND.
    public var connectable: Bool
    public var txPower: Int8
    /// A second frame each advertising event sends after `data`, on every channel (a
    /// beacon's second slot); at most 31 bytes.
    public var secondData: [UInt8]?

    public init(data: [UInt8], secondData: [UInt8]? = nil, interval: AdvertisingInterval, connectable: Bool = true, txPower: Int8 = 0) {
        self.data = data
        self.secondData = secondData
        self.interval = interval
        self.connectable = connectable
        self.txPower = txPower
    }
}

/// What a ``VirtualPeripheral`` sends back after a fragment.
public struct VirtualPeripheralReply: Hashable, Sendable {
    /// ACL fragments to the central, each at most 27 data bytes (the LE minimum data PDU
    /// payload, Core v5.4 Vol 6 Part B 2.4); longer ones are dropped by the air.
    public var fragments: [ACLDataPacket]
    /// Hang up after sending them, with this reason to the central.
    public var disconnect: HCIStatus?

    public init(fragments: [ACLDataPacket] = [], disconnect: HCIStatus? = nil) {
        self.fragments = fragments
        self.disconnect = disconnect
    }

    public static let none = VirtualPeripheralReply()
}
