#if os(Linux)
import BeaconCore
import CBlueZ
import Glibc
import HCI

/// One end of an LE link's ATT channel as a kernel L2CAP socket names it: `struct sockaddr_l2`
/// (BlueZ lib/l2cap.h) with PSM 0, the fixed channel 0x0004 and the LE address type. The
/// kernel reads `l2_cid` and `l2_psm` little-endian and the address least significant byte
/// first (net/bluetooth/l2cap_sock.c, l2cap_sock_bind and l2cap_sock_connect).
struct KernelL2CAPAddress: Equatable, Sendable {
    /// The ATT fixed channel on LE links (Core v5.4 Vol 3 Part A 2.1, Table 2.3).
    static let attributeChannel: UInt16 = 0x0004

    /// `l2_bdaddr_type`: the kernel's LE address types (BlueZ lib/bluetooth.h, BDADDR_LE_*).
    enum Kind: UInt8, Sendable {
        case lePublic = 1
        case leRandom = 2

        init(_ type: PeerAddressType) {
            self = type == .public ? .lePublic : .leRandom
        }
    }

    var address: BluetoothAddress
    var kind: Kind

    /// The structure `bind` and `connect` take.
    var socketAddress: sockaddr_l2 {
        var socketAddress = sockaddr_l2()
        socketAddress.l2_family = sa_family_t(AF_BLUETOOTH)
        socketAddress.l2_psm = 0
        let bytes = address.littleEndianBytes
        withUnsafeMutableBytes(of: &socketAddress.l2_bdaddr.b) { field in
            for (index, byte) in bytes.enumerated() where index < field.count { field[index] = byte }
        }
        socketAddress.l2_cid = Self.attributeChannel.littleEndian
        socketAddress.l2_bdaddr_type = kind.rawValue
        return socketAddress
    }
}
#endif
