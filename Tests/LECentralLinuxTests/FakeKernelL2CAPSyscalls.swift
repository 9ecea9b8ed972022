#if os(Linux)
import Glibc
import HCITransports
import Synchronization

@testable import LECentralLinux

/// A kernel with scriptable L2CAP sockets. The "socket" it hands out is one end of a real
/// `SOCK_SEQPACKET` pair (PDU boundaries kept, as on an L2CAP socket): the test plays the
/// peripheral on the other end (``peerEnd``). With `neverConnects` it hands out the read end
/// of a pipe instead, which never becomes writable: a connection that never completes.
final class FakeKernelL2CAPSyscalls: KernelL2CAPSyscalls {
    struct Script {
        var neverConnects = false
        /// `errno` for `connect()` itself, or nil for EINPROGRESS.
        var connectError: Int32?
        /// What SO_ERROR reports once the socket is ready.
        var pendingError: Int32 = 0
        var mtu: KernelL2CAPMTU? = KernelL2CAPMTU(receive: 672, send: 672)
    }

    struct Log {
        var bound: [KernelL2CAPAddress] = []
        var connected: [KernelL2CAPAddress] = []
        var securityLevels: [UInt8] = []
        var closed: [Int32] = []
    }

    private let state: Mutex<(script: Script, log: Log)>
    /// The peripheral's end of the pair.
    let peerEnd: Int32
    /// The end handed out as the L2CAP socket.
    let socketEnd: Int32
    private let pipeEnds: (read: Int32, write: Int32)

    init(_ script: Script = Script()) throws {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw POSIXCallError.lastError(of: "socketpair")
        }
        socketEnd = ends[0]
        peerEnd = ends[1]
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else { throw POSIXCallError.lastError(of: "pipe") }
        pipeEnds = (pipeFDs[0], pipeFDs[1])
        state = Mutex((script, Log()))
    }

    deinit {
        Glibc.close(peerEnd)
        Glibc.close(pipeEnds.write)
    }

    var log: Log { state.withLock { $0.log } }

    func openSocket() throws(POSIXCallError) -> Int32 {
        state.withLock { $0.script.neverConnects } ? pipeEnds.read : socketEnd
    }

    func bind(_ socket: Int32, to address: KernelL2CAPAddress) throws(POSIXCallError) {
        state.withLock { $0.log.bound.append(address) }
    }

    func setSecurityLevel(_ socket: Int32, _ level: UInt8) throws(POSIXCallError) {
        state.withLock { $0.log.securityLevels.append(level) }
    }

    func connect(_ socket: Int32, to address: KernelL2CAPAddress) throws(POSIXCallError) -> Bool {
        let error = state.withLock { state -> Int32? in
            state.log.connected.append(address)
            return state.script.connectError
        }
        if let error { throw POSIXCallError("connect", code: error) }
        return false
    }

    func pendingError(_ socket: Int32) -> Int32 {
        state.withLock { $0.script.pendingError }
    }

    func mtu(_ socket: Int32) -> KernelL2CAPMTU? {
        state.withLock { $0.script.mtu }
    }

    func receive(_ socket: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(POSIXCallError) -> Int {
        let count = recv(socket, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
        guard count >= 0 else { throw POSIXCallError.lastError(of: "recv") }
        return count
    }

    func send(_ socket: Int32, _ bytes: [UInt8]) throws(POSIXCallError) -> Int {
        let count = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL)) }
        guard count >= 0 else { throw POSIXCallError.lastError(of: "send") }
        return count
    }

    func poll(_ descriptors: inout [pollfd], timeoutMilliseconds: Int32) throws(POSIXCallError) -> Int32 {
        try SystemDescriptorIO(isSocket: true).poll(&descriptors, timeoutMilliseconds: timeoutMilliseconds)
    }

    func close(_ socket: Int32) {
        state.withLock { $0.log.closed.append(socket) }
        _ = Glibc.close(socket)
    }

    /// The peripheral sends one PDU.
    func peerSends(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(peerEnd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The PDU waiting at the peripheral's end, empty if none: a send on a Unix socket pair
    /// is in the peer's queue once it returned, so nothing needs waiting for.
    func peerReceives() -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { recv(peerEnd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        return count > 0 ? Array(buffer.prefix(count)) : []
    }

    /// The peripheral hangs up.
    func peerHangsUp() {
        shutdown(peerEnd, Int32(SHUT_RDWR))
    }
}
#endif
