import BeaconCore
import HCI

/// A connection attempt a controller's host started with LE (Extended) Create Connection,
/// pending until the peer advertises connectably or the host cancels it.
struct ConnectionAttempt: Hashable {
    var peerAddress: BluetoothAddress
    var peerAddressType: PeerAddressType
    /// The address the initiator connects from, and its type as the peer's event gives it.
    var ownAddress: BluetoothAddress
    var ownAddressType: LEAddressType
    var parameters: LEConnectionParameters
    /// Which command started it, for the answers of the same family.
    var extended: Bool

    /// Whether an advertiser sending from `address` (of `type`) is the peer this attempt wants.
    func targets(_ address: BluetoothAddress, _ type: LEAddressType) -> Bool {
        address == peerAddress && type.rawValue == peerAddressType.rawValue
    }
}

/// A connection between two controllers of the air: both ends know it by one handle.
struct AirLink: Hashable {
    let handle: UInt16
    let central: Int
    let peripheral: Int
    /// Interval (1.25 ms units), latency and supervision timeout (10 ms units) the central asked for.
    let interval: UInt16
    let latency: UInt16
    let supervisionTimeout: UInt16

    func includes(_ slot: Int) -> Bool { slot == central || slot == peripheral }

    func peer(of slot: Int) -> Int { slot == central ? peripheral : central }

    /// The supervision timeout in microseconds: how long after one end vanished the other
    /// end notices (Core v5.4 Vol 6 Part B 4.5.2).
    var supervisionMicroseconds: UInt64 { UInt64(supervisionTimeout) * 10_000 }
}

/// The largest ACL data a virtual controller takes or gives in one packet: the LE data
/// buffer size it reports (LE Read Buffer Size, 27 bytes).
let virtualACLPacketLength = 27
