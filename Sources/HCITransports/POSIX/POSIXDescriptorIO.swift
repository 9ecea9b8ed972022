#if os(Linux)
import Glibc

/// The calls a packet link makes on its descriptor once it is open. A seam: kernel HCI
/// sockets route these through a fake in tests to script failures and `errno`s.
package protocol PacketDescriptorIO: Sendable {
    /// Reads up to `buffer.count` bytes; 0 means end of stream.
    func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(POSIXCallError) -> Int
    /// Writes some prefix of `bytes`; returns how many bytes went out.
    func write(_ descriptor: Int32, from bytes: UnsafeRawBufferPointer) throws(POSIXCallError) -> Int
    /// `poll(2)`: fills in `revents`; returns the number of ready descriptors (0 on timeout).
    func poll(_ descriptors: inout [pollfd], timeoutMilliseconds: Int32) throws(POSIXCallError) -> Int32
    /// Closes the descriptor; errors are not actionable at that point and are ignored.
    func close(_ descriptor: Int32)
}

/// The real calls, on a descriptor this process opened (a TCP socket or a tty).
package struct SystemDescriptorIO: PacketDescriptorIO {
    /// Sockets are written with `send(MSG_NOSIGNAL)`: a dropped peer then fails the write
    /// with EPIPE instead of raising SIGPIPE, which would kill the whole process.
    package var isSocket: Bool

    package init(isSocket: Bool) {
        self.isSocket = isSocket
    }

    package func read(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer
    ) throws(POSIXCallError) -> Int {
        let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
        guard count >= 0 else { throw POSIXCallError.lastError(of: "read") }
        return count
    }

    package func write(
        _ descriptor: Int32, from bytes: UnsafeRawBufferPointer
    ) throws(POSIXCallError) -> Int {
        let count =
            isSocket
            ? Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            : Glibc.write(descriptor, bytes.baseAddress, bytes.count)
        guard count >= 0 else { throw POSIXCallError.lastError(of: isSocket ? "send" : "write") }
        return count
    }

    package func poll(
        _ descriptors: inout [pollfd], timeoutMilliseconds: Int32
    ) throws(POSIXCallError) -> Int32 {
        let ready = descriptors.withUnsafeMutableBufferPointer {
            Glibc.poll($0.baseAddress, nfds_t($0.count), timeoutMilliseconds)
        }
        guard ready >= 0 else { throw POSIXCallError.lastError(of: "poll") }
        return ready
    }

    package func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }
}
#endif
import HCI
