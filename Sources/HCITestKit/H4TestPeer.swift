#if os(Linux)
import ClockTestKit
import Glibc
import HCI
import HCITransports
import Synchronization

/// The controller's end of a test link (a TCP connection or a pseudo-terminal): writes
/// bytes as a controller would and reads what the transport sent. Reads run on a thread of
/// their own and end as soon as the bytes are in; their deadline (120 s unless a test says
/// otherwise) is a safety net that turns a broken transport into a failure, not a hang.
public final class H4TestPeer: Sendable {
    private let descriptor: Int32
    /// Sockets are written with send(MSG_NOSIGNAL), so a closed transport is an error, not SIGPIPE.
    private let isSocket: Bool
    private let isClosed = Mutex(false)

    public init(descriptor: Int32, isSocket: Bool) {
        self.descriptor = descriptor
        self.isSocket = isSocket
    }

    public func write(_ bytes: [UInt8]) throws {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes {
                isSocket
                    ? send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                    : Glibc.write(descriptor, $0.baseAddress, $0.count)
            }
            guard count > 0 else { throw POSIXCallError.lastError(of: "send") }
            written += count
        }
    }

    /// Reads exactly `count` bytes, or fails after `timeout` or at end of stream.
    public func read(count: Int, timeout: Duration = .seconds(120)) async throws -> [UInt8] {
        let received = try await receive(upTo: count, timeout: timeout)
        guard received.bytes.count == count else {
            throw TestFailure(
                "wanted \(count) bytes, got \(received.bytes.count) "
                    + (received.ended ? "before end of stream" : "within \(timeout)"))
        }
        return received.bytes
    }

    /// Reads until the other side closes; fails if it has not within `timeout`.
    public func readUntilClosed(timeout: Duration = .seconds(120)) async throws -> [UInt8] {
        let received = try await receive(upTo: .max, timeout: timeout)
        guard received.ended else {
            throw TestFailure("the connection was still open after \(timeout)")
        }
        return received.bytes
    }

    private func receive(upTo limit: Int, timeout: Duration) async throws -> (bytes: [UInt8], ended: Bool) {
        let descriptor = descriptor
        return try await POSIXThread.run {
            let deadline = ContinuousClock.now + timeout
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while bytes.count < limit {
                var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let remaining = ContinuousClock.now.duration(to: deadline)
                guard poll(&request, 1, remaining.pollTimeoutMilliseconds) == 1 else { return (bytes, false) }
                let wanted = min(chunk.count, limit - bytes.count)
                let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, wanted) }
                if count <= 0 { return (bytes, true) }
                bytes += chunk[..<count]
            }
            return (bytes, false)
        }
    }

    public func close() {
        let wasClosed = isClosed.withLock { closed in
            defer { closed = true }
            return closed
        }
        if !wasClosed {
            _ = shutdown(descriptor, Int32(SHUT_RDWR))
            Glibc.close(descriptor)
        }
    }

    /// Hands every chunk of bytes that arrives to `take`, on a thread of its own, until the
    /// other side closes or `close()` is called; then calls `ended`.
    public func readContinuously(_ take: @escaping @Sendable ([UInt8]) -> Void, ended: @escaping @Sendable () -> Void) throws {
        let descriptor = descriptor
        try POSIXThread.detach {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                take(Array(chunk[..<count]))
            }
            ended()
        }
    }

    deinit {
        close()
    }
}
#endif
