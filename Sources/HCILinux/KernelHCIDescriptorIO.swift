#if os(Linux)
import Glibc
import HCI
import HCITransports

/// Lets the packet link drive a kernel HCI socket through the syscall seam.
struct KernelHCIDescriptorIO: PacketDescriptorIO {
    let syscalls: any KernelHCISyscalls

    func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(POSIXCallError) -> Int {
        try syscalls.read(descriptor, into: buffer)
    }

    func write(_ descriptor: Int32, from bytes: UnsafeRawBufferPointer) throws(POSIXCallError) -> Int {
        try syscalls.write(descriptor, from: bytes)
    }

    func poll(_ descriptors: inout [pollfd], timeoutMilliseconds: Int32) throws(POSIXCallError) -> Int32 {
        try syscalls.poll(&descriptors, timeoutMilliseconds: timeoutMilliseconds)
    }

    func close(_ descriptor: Int32) {
        syscalls.close(descriptor)
    }
}
#endif
