#if os(Linux)
import ClockTestKit
import Glibc
import HCI
import HCITransports

/// A TCP listener on 127.0.0.1 with a port the kernel picks, standing in for a controller.
public final class TCPLoopbackServer: Sendable {
    public let port: UInt16
    private let listener: Int32

    /// Listens with `backlog`; `listening: false` only binds, so connects are refused.
    public init(listening: Bool = true, backlog: Int32 = 16) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXCallError.lastError(of: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound, !listening || listen(descriptor, backlog) == 0 else {
            let error = POSIXCallError.lastError(of: "bind/listen")
            close(descriptor)
            throw error
        }
        listener = descriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    /// Waits for the next connection, on a thread of its own; `timeout` is a safety net.
    public func accept(timeout: Duration = .seconds(120)) async throws -> H4TestPeer {
        let listener = listener
        let accepted: Result<Int32, TestFailure> = try await POSIXThread.run {
            var request = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, timeout.pollTimeoutMilliseconds) == 1 else {
                return .failure(TestFailure("no connection within \(timeout)"))
            }
            let peer = Glibc.accept(listener, nil, nil)
            guard peer >= 0 else {
                return .failure(
                    TestFailure("accept: \(POSIXCallError.lastError(of: "accept"))"))
            }
            return .success(peer)
        }
        return H4TestPeer(descriptor: try accepted.get(), isSocket: true)
    }

    deinit {
        close(listener)
    }
}

#endif
