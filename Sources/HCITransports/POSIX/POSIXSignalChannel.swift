#if os(Linux)
import Glibc

/// A socket pair whose only job is to wake `poll`. The packet link's closing channel (and a
/// kernel ATT socket's stop channel) is never drained: once signalled it stays readable, so
/// every later `poll` on it returns at once. The packet link's doorbell is drained by its
/// thread before it looks at the send queue again.
package final class SignalChannel: Sendable {
    package let readEnd: Int32
    private let writeEnd: Int32

    package init() throws(POSIXCallError) {
        var ends: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else {
            throw POSIXCallError.lastError(of: "socketpair")
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    package func signal() {
        // EAGAIN means the buffer already holds signals: the channel is readable either way.
        var byte: UInt8 = 1
        _ = Glibc.send(writeEnd, &byte, 1, Int32(MSG_NOSIGNAL))
    }

    /// Empties the channel, so that `poll` waits again until the next signal.
    package func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ Glibc.recv(readEnd, $0.baseAddress, $0.count, 0) }) > 0 {}
    }

    deinit {
        Glibc.close(readEnd)
        Glibc.close(writeEnd)
    }
}
#endif
