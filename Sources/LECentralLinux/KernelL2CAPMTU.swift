#if os(Linux)
import LECentral

/// The MTUs of a connected kernel L2CAP socket on the ATT channel, and the limit they put on
/// ATT PDUs. On LE the kernel reports them through `BT_RCVMTU` / `BT_SNDMTU` (one `u16`
/// each); kernels that refuse those for the ATT channel still answer `L2CAP_OPTIONS`
/// (`struct l2cap_options`: `omtu`, then `imtu`, both `u16`), which BlueZ's btio falls back to.
/// Both are in the machine's byte order, as `getsockopt` hands them over.
struct KernelL2CAPMTU: Equatable, Sendable {
    /// The longest SDU the socket accepts (`imtu`).
    var receive: Int
    /// The longest SDU the socket sends (`omtu`).
    var send: Int

    init(receive: Int, send: Int) {
        self.receive = receive
        self.send = send
    }

    /// From the two `u16` options; `nil` unless each holds exactly two bytes.
    init?(receiveOption: [UInt8], sendOption: [UInt8]) {
        guard let receive = Self.u16(receiveOption), let send = Self.u16(sendOption),
            receiveOption.count == 2, sendOption.count == 2
        else { return nil }
        self.init(receive: receive, send: send)
    }

    /// From `struct l2cap_options`; `nil` when it is too short to hold both MTUs.
    init?(l2capOptions bytes: [UInt8]) {
        guard bytes.count >= 4, let send = Self.u16(Array(bytes[0..<2])), let receive = Self.u16(Array(bytes[2..<4])) else {
            return nil
        }
        self.init(receive: receive, send: send)
    }

    /// The longest ATT PDU the socket carries both ways: the smaller MTU, never below ATT's
    /// default of 23 (Core v5.4 Vol 3 Part F 3.2.8, which every LE link carries); `nil` when
    /// the kernel left both unset (0): the socket then sets no limit of its own.
    var largestATTPDU: Int? {
        let known = [receive, send].filter { $0 > 0 }
        guard let smaller = known.min() else { return nil }
        return max(ATTClient.defaultMTU, smaller)
    }

    /// A `u16` in the machine's byte order, from the first two bytes.
    private static func u16(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        var value: UInt16 = 0
        withUnsafeMutableBytes(of: &value) { field in
            field[0] = bytes[0]
            field[1] = bytes[1]
        }
        return Int(value)
    }
}
#endif
