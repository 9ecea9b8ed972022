#if os(Linux)
import ClockTestKit
import Glibc
import HCI
import HCITestKit
import HCITransports
import Synchronization

@testable import HCILinux

/// A kernel with a scriptable Bluetooth subsystem.
///
/// Setup calls (socket, bind, socket options, ioctls) return what the script says. The
/// "HCI socket" it hands out is one end of a real `SOCK_SEQPACKET` pair, so reads, writes
/// and polls run for real with datagram boundaries kept, as on an HCI socket; the test
/// plays the kernel on the other end (``kernelEnd``) and can script an `errno` for the
/// next reads, writes or polls.
final class FakeKernelHCISyscalls: KernelHCISyscalls {
    struct Script {
        /// `errno` for `socket()`, or nil to succeed.
        var socketError: Int32?
        /// `errno` for `bind()`, or nil to succeed.
        var bindError: Int32?
        var devices: [KernelHCIDeviceInfo] = [.fake(index: 0, isUp: true)]
        /// Simulates a process without CAP_NET_RAW: the kernel keeps only these event bits.
        var eventCodesKeptWithoutCapability: UInt64?
        var pendingReadErrors: [Int32] = []
        var pendingWriteErrors: [Int32] = []
        var pendingPollErrors: [Int32] = []
    }

    /// What the code under test did, for the test to check.
    struct Log {
        var binds: [(device: UInt16, channel: UInt16)] = []
        var socketOptions: [(level: Int32, option: Int32, value: [UInt8])] = []
        var closed: [Int32] = []
        var opened: [Int32] = []
    }

    private struct State {
        var script: Script
        var log = Log()
        var filter: [UInt8] = []
    }

    private let state: Mutex<State>
    /// How many times the transport has called `poll`: a test awaits the reader reaching it.
    let polls = WatchedState(0)
    /// The test's end of the socket pair: write packets here as the kernel, read what was sent.
    let kernelEnd: Int32
    /// The end handed to the transport as its HCI socket.
    let socketEnd: Int32

    init(_ script: Script = Script()) throws {
        var ends: [Int32] = [-1, -1]
        guard
            socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0
        else {
            throw POSIXCallError.lastError(of: "socketpair")
        }
        socketEnd = ends[0]
        kernelEnd = ends[1]
        _ = fcntl(socketEnd, F_SETFL, fcntl(socketEnd, F_GETFL) | O_NONBLOCK)
        state = Mutex(State(script: script))
    }

    deinit {
        Glibc.close(kernelEnd)
        if !log.closed.contains(socketEnd) { Glibc.close(socketEnd) }
    }

    var log: Log { state.withLock { $0.log } }

    func script(_ change: (inout Script) -> Void) {
        state.withLock { change(&$0.script) }
    }

    /// Sends one datagram to the transport, as the kernel delivering a packet.
    func deliver(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { send(kernelEnd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Receives one datagram the transport sent. The wait runs on a thread of its own, so
    /// that it holds none of Swift's cooperative threads, and ends when the datagram is in;
    /// after 120 s (a hang, not a slow machine) it gives up with `nil`.
    func nextSent() async throws -> [UInt8]? {
        let kernelEnd = kernelEnd
        return try await POSIXThread.run { () -> [UInt8]? in
            var request = pollfd(fd: kernelEnd, events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&request, 1, 120_000) == 1 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 70_000)
            let count = buffer.withUnsafeMutableBytes { recv(kernelEnd, $0.baseAddress, $0.count, 0) }
            return count > 0 ? Array(buffer[..<count]) : nil
        }
    }

    // MARK: KernelHCISyscalls

    func openHCISocket() throws(POSIXCallError) -> Int32 {
        try state.withLock { (state) throws(POSIXCallError) -> Int32 in
            if let code = state.script.socketError { throw POSIXCallError("socket", code: code) }
            state.log.opened.append(socketEnd)
            return socketEnd
        }
    }

    func bind(_ socket: Int32, device: UInt16, channel: UInt16) throws(POSIXCallError) {
        try state.withLock { (state) throws(POSIXCallError) in
            state.log.binds.append((device, channel))
            if let code = state.script.bindError { throw POSIXCallError("bind", code: code) }
            guard state.script.devices.contains(where: { $0.index == device }) else {
                throw POSIXCallError("bind", code: ENODEV)
            }
        }
    }

    func setSocketOption(_ socket: Int32, level: Int32, option: Int32, value: [UInt8]) throws(POSIXCallError)
    {
        state.withLock { state in
            state.log.socketOptions.append((level, option, value))
            var kept = value
            if let allowed = state.script.eventCodesKeptWithoutCapability,
                var filter = KernelHCIFilter(socketOptionBytes: value)
            {
                filter.eventCodes &= allowed
                kept = filter.socketOptionBytes
            }
            state.filter = kept
        }
    }

    func socketOption(
        _ socket: Int32, level: Int32, option: Int32, length: Int
    ) throws(POSIXCallError) -> [UInt8] {
        state.withLock { Array($0.filter.prefix(length)) }
    }

    func deviceList(_ socket: Int32) throws(POSIXCallError) -> [UInt16] {
        state.withLock { $0.script.devices.map(\.index) }
    }

    func deviceInfo(_ socket: Int32, device: UInt16) throws(POSIXCallError) -> KernelHCIDeviceInfo {
        try state.withLock { (state) throws(POSIXCallError) -> KernelHCIDeviceInfo in
            guard let info = state.script.devices.first(where: { $0.index == device }) else {
                throw POSIXCallError("ioctl(HCIGETDEVINFO)", code: ENODEV)
            }
            return info
        }
    }

    func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(POSIXCallError) -> Int {
        if let code = takeScripted(\.pendingReadErrors) { throw POSIXCallError("read", code: code) }
        let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
        guard count >= 0 else { throw POSIXCallError.lastError(of: "read") }
        return count
    }

    func write(_ descriptor: Int32, from bytes: UnsafeRawBufferPointer) throws(POSIXCallError) -> Int {
        if let code = takeScripted(\.pendingWriteErrors) { throw POSIXCallError("write", code: code) }
        let count = send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        guard count >= 0 else { throw POSIXCallError.lastError(of: "write") }
        return count
    }

    func poll(_ descriptors: inout [pollfd], timeoutMilliseconds: Int32) throws(POSIXCallError) -> Int32 {
        if let code = takeScripted(\.pendingPollErrors) { throw POSIXCallError("poll", code: code) }
        polls.update { $0 += 1 }
        let ready = descriptors.withUnsafeMutableBufferPointer {
            Glibc.poll($0.baseAddress, nfds_t($0.count), timeoutMilliseconds)
        }
        guard ready >= 0 else { throw POSIXCallError.lastError(of: "poll") }
        return ready
    }

    func close(_ descriptor: Int32) {
        state.withLock { $0.log.closed.append(descriptor) }
        Glibc.close(descriptor)
    }

    private func takeScripted(_ queue: WritableKeyPath<Script, [Int32]>) -> Int32? {
        state.withLock { state in
            guard let code = state.script[keyPath: queue].first else { return nil }
            state.script[keyPath: queue].removeFirst()
            return code
        }
    }
}
extension KernelHCIDeviceInfo {
    /// A USB controller at 00:1A:7D:DA:71:13, up (and running) or down.
    static func fake(index: UInt16, isUp: Bool) -> KernelHCIDeviceInfo {
        KernelHCIDeviceInfo(
            index: index, name: "hci\(index)", addressBytes: [0x13, 0x71, 0xDA, 0x7D, 0x1A, 0x00],
            flags: isUp ? 0b101 : 0, type: 1)
    }
}
#endif
