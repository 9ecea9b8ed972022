#if os(Linux)
import Glibc

/// What an `errno` from a kernel L2CAP socket on the ATT channel means, in words.
///
/// The kernel turns the HCI reason a link ended with into an `errno` (net/bluetooth/lib.c,
/// `bt_to_errno`): 0x08 Connection Timeout → ETIMEDOUT; 0x13–0x15 the remote side terminated
/// → ECONNRESET; 0x16 terminated by the local host → ECONNABORTED; 0x04 Page Timeout and 0x3C
/// → EHOSTDOWN; 0x0D–0x0F and 0x1B (limited resources, security, unacceptable address) →
/// ECONNREFUSED; 0x07 and 0x09/0x0A (no memory, limits reached) → ENOMEM/EMLINK. A connect
/// fails with EHOSTUNREACH when no controller routes to the peer from the bound address
/// (hci_get_route), and with EBUSY while the kernel has another LE connection attempt going
/// or this link's ATT channel is open already (l2cap_chan_connect).
enum KernelL2CAPErrno {
    /// Where the error arose: while connecting, or on the connected link.
    enum Phase: Sendable {
        case connecting
        case connected
    }

    /// "the link was lost (supervision timeout): … (ETIMEDOUT)".
    static func words(_ code: Int32, while phase: Phase) -> String {
        "\(meaning(code, phase)) (\(name(of: code)))"
    }

    private static func meaning(_ code: Int32, _ phase: Phase) -> String {
        switch (code, phase) {
        case (ETIMEDOUT, .connecting):
            return "the kernel gave up connecting: the peripheral did not answer; check that it is advertising connectably (a beacon may need a button press to wake) and is in range"
        case (ETIMEDOUT, .connected):
            return "the link was lost (supervision timeout): the peripheral went out of range, was switched off or stopped answering"
        case (ECONNRESET, _):
            return "the peripheral ended the connection"
        case (ECONNABORTED, _):
            return "the link was ended on this host (by the kernel, or by another program on this controller)"
        case (EHOSTDOWN, _):
            return "the peripheral did not answer"
        case (ECONNREFUSED, _):
            return "the peripheral refused the connection (limited resources, security, or an address it does not accept)"
        case (EHOSTUNREACH, _), (ENETUNREACH, _):
            return "the kernel has no LE controller with this address to connect from: the controller is down, was removed, or changed its address"
        case (ENETDOWN, _):
            return "the controller is down"
        case (EBUSY, _):
            return "the kernel is busy: another LE connection attempt is under way on this controller, or the ATT channel to this peripheral is open already (bluetoothd may be connected to it); try again once that has ended"
        case (EALREADY, _), (EISCONN, _):
            return "a connection to this peripheral exists already"
        case (ENOMEM, _), (EMLINK, _):
            return "the controller has no room for another connection"
        case (EOPNOTSUPP, _), (EPROTONOSUPPORT, _):
            return "the kernel or the controller does not support this LE connection"
        case (EACCES, _), (EPERM, _):
            return "the kernel refused: the link does not have the security the channel asks for"
        case (EINVAL, _):
            return "the kernel refused the addresses or the channel as invalid"
        case (EPROTO, _), (EBADE, _):
            return "the link failed with a protocol error"
        case (ENOTCONN, _):
            return "the link is not connected"
        case (EPIPE, _):
            return "the link is closed"
        default:
            return String(cString: strerror(code))
        }
    }

    /// The error's symbolic name, e.g. "ETIMEDOUT"; "errno N" for one not listed.
    static func name(of code: Int32) -> String {
        let names: [Int32: String] = [
            ETIMEDOUT: "ETIMEDOUT", ECONNRESET: "ECONNRESET", ECONNABORTED: "ECONNABORTED", EHOSTDOWN: "EHOSTDOWN",
            ECONNREFUSED: "ECONNREFUSED", EHOSTUNREACH: "EHOSTUNREACH", ENETUNREACH: "ENETUNREACH", ENETDOWN: "ENETDOWN",
            EBUSY: "EBUSY", EALREADY: "EALREADY", EISCONN: "EISCONN", ENOMEM: "ENOMEM", EMLINK: "EMLINK",
            EOPNOTSUPP: "EOPNOTSUPP", EPROTONOSUPPORT: "EPROTONOSUPPORT", EACCES: "EACCES", EPERM: "EPERM",
            EINVAL: "EINVAL", EPROTO: "EPROTO", EBADE: "EBADE", ENOTCONN: "ENOTCONN", EPIPE: "EPIPE",
            EAFNOSUPPORT: "EAFNOSUPPORT", ENODEV: "ENODEV", EIO: "EIO", EAGAIN: "EAGAIN", EINTR: "EINTR",
        ]
        return names[code] ?? "errno \(code)"
    }
}
#endif
