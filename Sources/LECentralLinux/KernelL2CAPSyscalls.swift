#if os(Linux)
import CBlueZ
import Glibc
import HCITransports

/// The system calls of a kernel L2CAP socket on the ATT channel, as a seam (as
/// `KernelHCISyscalls` is for HCI sockets): ``LinuxKernelL2CAPSyscalls`` makes the real
/// calls; tests hand out one end of a socket pair and script the `errno`s.
protocol KernelL2CAPSyscalls: Sendable {
    /// `socket(AF_BLUETOOTH, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, BTPROTO_L2CAP)`.
    func openSocket() throws(POSIXCallError) -> Int32
    /// `bind` to the controller's end of the channel.
    func bind(_ socket: Int32, to address: KernelL2CAPAddress) throws(POSIXCallError)
    /// `setsockopt(SOL_BLUETOOTH, BT_SECURITY, struct bt_security { level, key_size 0 })`.
    func setSecurityLevel(_ socket: Int32, _ level: UInt8) throws(POSIXCallError)
    /// `connect` to the peer's end; true when it completed at once, false when the kernel
    /// goes on in the background (EINPROGRESS on a non-blocking socket).
    func connect(_ socket: Int32, to address: KernelL2CAPAddress) throws(POSIXCallError) -> Bool
    /// `getsockopt(SOL_SOCKET, SO_ERROR)`: the error the connection ended or failed with, 0 for none.
    func pendingError(_ socket: Int32) -> Int32
    /// The socket's MTUs once connected; `nil` when the kernel reports neither form.
    func mtu(_ socket: Int32) -> KernelL2CAPMTU?
    /// `recv(MSG_DONTWAIT)`: one whole PDU; 0 at the end of the channel.
    func receive(_ socket: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(POSIXCallError) -> Int
    /// `send(MSG_DONTWAIT | MSG_NOSIGNAL)`: one whole PDU.
    func send(_ socket: Int32, _ bytes: [UInt8]) throws(POSIXCallError) -> Int
    /// `poll(2)`.
    func poll(_ descriptors: inout [pollfd], timeoutMilliseconds: Int32) throws(POSIXCallError) -> Int32
    /// `close(2)`.
    func close(_ socket: Int32)
}

/// The real calls, through Glibc and BlueZ's structures.
struct LinuxKernelL2CAPSyscalls: KernelL2CAPSyscalls {
    func openSocket() throws(POSIXCallError) -> Int32 {
        // Non-blocking: connect returns at once and is waited for in poll, where a stop
        // signal or the deadline can end the wait; reads and writes never park a thread.
        let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let socket = Glibc.socket(AF_BLUETOOTH, type, BTPROTO_L2CAP)
        guard socket >= 0 else { throw POSIXCallError.lastError(of: "socket") }
        return socket
    }

    func bind(_ socket: Int32, to address: KernelL2CAPAddress) throws(POSIXCallError) {
        var socketAddress = address.socketAddress
        let result = withUnsafePointer(to: &socketAddress) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(socket, $0, socklen_t(MemoryLayout<sockaddr_l2>.size))
            }
        }
        guard result == 0 else { throw POSIXCallError.lastError(of: "bind") }
    }

    func setSecurityLevel(_ socket: Int32, _ level: UInt8) throws(POSIXCallError) {
        var security = bt_security()
        security.level = level
        security.key_size = 0
        let result = setsockopt(socket, SOL_BLUETOOTH, BT_SECURITY, &security, socklen_t(MemoryLayout<bt_security>.size))
        guard result == 0 else { throw POSIXCallError.lastError(of: "setsockopt(BT_SECURITY)") }
    }

    func connect(_ socket: Int32, to address: KernelL2CAPAddress) throws(POSIXCallError) -> Bool {
        var socketAddress = address.socketAddress
        let result = withUnsafePointer(to: &socketAddress) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_l2>.size))
            }
        }
        if result == 0 { return true }
        let error = POSIXCallError.lastError(of: "connect")
        if error.code == EINPROGRESS { return false }
        throw error
    }

    func pendingError(_ socket: Int32) -> Int32 {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(socket, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else { return errno }
        return code
    }

    func mtu(_ socket: Int32) -> KernelL2CAPMTU? {
        if let receive = option(socket, level: SOL_BLUETOOTH, name: BT_RCVMTU, length: 2),
            let send = option(socket, level: SOL_BLUETOOTH, name: BT_SNDMTU, length: 2),
            let mtu = KernelL2CAPMTU(receiveOption: receive, sendOption: send)
        {
            return mtu
        }
        guard let options = option(socket, level: SOL_L2CAP, name: L2CAP_OPTIONS, length: MemoryLayout<l2cap_options>.size)
        else { return nil }
        return KernelL2CAPMTU(l2capOptions: options)
    }

    private func option(_ socket: Int32, level: Int32, name: Int32, length: Int) -> [UInt8]? {
        var value = [UInt8](repeating: 0, count: length)
        var returned = socklen_t(length)
        let result = value.withUnsafeMutableBytes { getsockopt(socket, level, name, $0.baseAddress, &returned) }
        guard result == 0 else { return nil }
        return Array(value.prefix(Int(returned)))
    }

    func receive(_ socket: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(POSIXCallError) -> Int {
        let count = Glibc.recv(socket, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
        guard count >= 0 else { throw POSIXCallError.lastError(of: "recv") }
        return count
    }

    func send(_ socket: Int32, _ bytes: [UInt8]) throws(POSIXCallError) -> Int {
        let count = bytes.withUnsafeBytes {
            Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
        }
        guard count >= 0 else { throw POSIXCallError.lastError(of: "send") }
        return count
    }

    func poll(_ descriptors: inout [pollfd], timeoutMilliseconds: Int32) throws(POSIXCallError) -> Int32 {
        try SystemDescriptorIO(isSocket: true).poll(&descriptors, timeoutMilliseconds: timeoutMilliseconds)
    }

    func close(_ socket: Int32) {
        _ = Glibc.close(socket)
    }
}
#endif
