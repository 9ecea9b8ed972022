import Glibc

/// A TCP connection to a port on 127.0.0.1, on plain POSIX calls: enough for tests to talk
/// raw H4 to RootCanal without depending on the project's own transports.
///
/// Connects and reads never block a thread of the cooperative pool: they poll the socket
/// without waiting and sleep asynchronously in between, so parallel tests on few cores move on.
final class LoopbackSocket {
    let port: UInt16
    private var descriptor: Int32

    /// How long one connection attempt may stay unanswered before it is made again.
    ///
    /// RootCanal listens with a backlog of 1: when connections arrive together, the kernel
    /// drops a SYN and the client would only retransmit it after a second. A fresh attempt
    /// on loopback is answered at once when there is room.
    private static let attemptWindow: Duration = .milliseconds(50)

    private init(descriptor: Int32, port: UInt16) {
        self.descriptor = descriptor
        self.port = port
    }

    /// Connects to 127.0.0.1:`port`; throws at once if nothing listens there, or when no
    /// attempt was accepted within `timeout`.
    static func connect(toPort port: UInt16, timeout: Duration = .seconds(60)) async throws -> LoopbackSocket {
        let deadline = ContinuousClock.now + timeout
        while true {
            let attempt = try startConnecting(toPort: port)
            let attemptDeadline = min(deadline, ContinuousClock.now + attemptWindow)
            while ContinuousClock.now < attemptDeadline {
                if try attempt.finishConnecting() { return attempt }
                // A non-blocking connect on a real socket: polled, never blocking a pool thread.
                try await Task.sleep(for: .milliseconds(2))
            }
            attempt.close()
            guard ContinuousClock.now < deadline else {
                throw LoopbackSocketError(description: "127.0.0.1:\(port): no connection accepted within \(timeout)")
            }
        }
    }

    /// A non-blocking socket whose connect is under way.
    private static func startConnecting(toPort port: UInt16) throws(LoopbackSocketError) -> LoopbackSocket {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw .systemCall("socket", port: port) }
        let attempt = LoopbackSocket(descriptor: descriptor, port: port)
        var address = address(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 || errno == EINPROGRESS else { throw .systemCall("connect", port: port) }
        return attempt
    }

    /// Whether the connect completed; throws if it failed (ECONNREFUSED: nothing listens).
    private func finishConnecting() throws(LoopbackSocketError) -> Bool {
        var writable = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        guard poll(&writable, 1, 0) > 0 else { return false }
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 else {
            throw .systemCall("getsockopt(SO_ERROR)", port: port)
        }
        guard failure == 0 else {
            errno = failure
            throw .systemCall("connect", port: port)
        }
        // Back to blocking for sends, bounded by a timeout; reads poll with MSG_DONTWAIT.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        var sendTimeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
        return true
    }

    deinit { close() }

    /// Writes every byte. MSG_NOSIGNAL: a peer that died must give EPIPE, not kill the
    /// test process with SIGPIPE.
    func send(_ bytes: [UInt8]) throws(LoopbackSocketError) {
        var offset = 0
        while offset < bytes.count {
            guard descriptor >= 0 else { throw .closed(port: port) }
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw .systemCall("send", port: port)
            }
            offset += written
        }
    }

    /// Reads exactly `count` bytes, or throws when the peer closes the connection or
    /// `deadline` passes first.
    func receive(exactly count: Int, before deadline: ContinuousClock.Instant) async throws -> [UInt8] {
        var received: [UInt8] = []
        received.reserveCapacity(count)
        var chunk = [UInt8](repeating: 0, count: max(count, 1))
        while received.count < count {
            guard descriptor >= 0 else { throw LoopbackSocketError.closed(port: port) }
            let wanted = count - received.count
            let got = chunk.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, wanted, Int32(MSG_DONTWAIT))
            }
            if got > 0 {
                received.append(contentsOf: chunk[0..<got])
            } else if got == 0 || errno == ECONNRESET {
                // A process that dies with unread input in its socket resets the connection.
                throw LoopbackSocketError.peerClosed(port: port, afterBytes: received.count, of: count)
            } else if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                guard ContinuousClock.now < deadline else {
                    throw LoopbackSocketError.timedOut(port: port, afterBytes: received.count, of: count)
                }
                // A non-blocking real socket with nothing yet: read again, never blocking a pool thread.
                try await Task.sleep(for: .milliseconds(5))
            } else {
                throw LoopbackSocketError.systemCall("recv", port: port)
            }
        }
        return received
    }

    /// Reads until the peer closes the connection (an HTTP/1.1 answer to `Connection:
    /// close`), or throws when `deadline` passes first or more than `limit` bytes arrive.
    func receiveUntilClosed(before deadline: ContinuousClock.Instant, limit: Int = 16 << 20) async throws -> [UInt8] {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            guard descriptor >= 0 else { throw LoopbackSocketError.closed(port: port) }
            let got = chunk.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if got > 0 {
                received.append(contentsOf: chunk[0..<got])
                guard received.count <= limit else {
                    throw LoopbackSocketError(description: "127.0.0.1:\(port): more than \(limit) bytes in one answer")
                }
            } else if got == 0 || errno == ECONNRESET {
                return received
            } else if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                guard ContinuousClock.now < deadline else {
                    throw LoopbackSocketError.timedOut(port: port, afterBytes: received.count, of: received.count + 1)
                }
                // A non-blocking real socket with nothing yet: read again, never blocking a pool thread.
                try await Task.sleep(for: .milliseconds(5))
            } else {
                throw LoopbackSocketError.systemCall("recv", port: port)
            }
        }
    }

    /// Closes the connection. Idempotent.
    func close() {
        if descriptor >= 0 {
            Glibc.close(descriptor)
            descriptor = -1
        }
    }

    /// 127.0.0.1:`port` as the kernel wants it: port and address in network byte order.
    static func address(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(INADDR_LOOPBACK).bigEndian
        return address
    }
}

/// What went wrong on a loopback socket, naming the port so a failing test says which
/// controller connection broke.
struct LoopbackSocketError: Error, CustomStringConvertible {
    let description: String

    init(description: String) {
        self.description = description
    }

    static func systemCall(_ call: String, port: UInt16) -> Self {
        let code = errno
        let reason = String(cString: strerror(code))
        return Self(description: "127.0.0.1:\(port): \(call) failed: \(reason) (errno \(code))")
    }

    static func closed(port: UInt16) -> Self {
        Self(description: "127.0.0.1:\(port): the socket was already closed by this test")
    }

    static func peerClosed(port: UInt16, afterBytes received: Int, of wanted: Int) -> Self {
        Self(description: "127.0.0.1:\(port): the peer closed the connection after \(received) of \(wanted) "
            + "expected bytes (if it is RootCanal, it may have died: see its log tail)")
    }

    static func timedOut(port: UInt16, afterBytes received: Int, of wanted: Int) -> Self {
        Self(description: "127.0.0.1:\(port): timed out with \(received) of \(wanted) expected bytes received")
    }
}
