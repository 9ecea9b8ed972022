#if os(Linux)
import CBlueZ
import Glibc
import HCI
import HCITransports

/// The real system calls, through Glibc and BlueZ's structures.
public struct LinuxKernelHCISyscalls: KernelHCISyscalls {
    /// How many controllers one `HCIGETDEVLIST` asks about. BlueZ's tools ask for 16; the
    /// kernel accepts up to two pages' worth.
    static let deviceListCapacity = 64

    /// struct hci_dev_list_req { u16 dev_num; struct hci_dev_req dev_req[]; } with
    /// struct hci_dev_req { u16 dev_id; u32 dev_opt; }: the array starts at the first offset
    /// aligned for hci_dev_req.
    static let deviceListEntriesOffset = max(
        MemoryLayout<UInt16>.size, MemoryLayout<hci_dev_req>.alignment)

    public init() {}

    public func openHCISocket() throws(POSIXCallError) -> Int32 {
        // Non-blocking so that the reader thread can only ever wait in poll, where close()
        // can wake it.
        let type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let socket = Glibc.socket(AF_BLUETOOTH, type, BTPROTO_HCI)
        guard socket >= 0 else { throw POSIXCallError.lastError(of: "socket") }
        return socket
    }

    public func bind(_ socket: Int32, device: UInt16, channel: UInt16) throws(POSIXCallError) {
        var address = sockaddr_hci()
        address.hci_family = sa_family_t(AF_BLUETOOTH)
        address.hci_dev = device
        address.hci_channel = channel
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                Glibc.bind(socket, generic, socklen_t(MemoryLayout<sockaddr_hci>.size))
            }
        }
        guard result == 0 else { throw POSIXCallError.lastError(of: "bind") }
    }

    public func setSocketOption(
        _ socket: Int32, level: Int32, option: Int32, value: [UInt8]
    ) throws(POSIXCallError) {
        let result = value.withUnsafeBytes { bytes in
            setsockopt(socket, level, option, bytes.baseAddress, socklen_t(bytes.count))
        }
        guard result == 0 else { throw POSIXCallError.lastError(of: "setsockopt") }
    }

    public func socketOption(
        _ socket: Int32, level: Int32, option: Int32, length: Int
    ) throws(POSIXCallError) -> [UInt8] {
        var value = [UInt8](repeating: 0, count: length)
        var returned = socklen_t(length)
        let result = value.withUnsafeMutableBytes { bytes in
            getsockopt(socket, level, option, bytes.baseAddress, &returned)
        }
        guard result == 0 else { throw POSIXCallError.lastError(of: "getsockopt") }
        return Array(value.prefix(Int(returned)))
    }

    public func deviceList(_ socket: Int32) throws(POSIXCallError) -> [UInt16] {
        let entryStride = MemoryLayout<hci_dev_req>.stride
        let entriesOffset = Self.deviceListEntriesOffset
        let capacity = Self.deviceListCapacity
        let request = UnsafeMutableRawBufferPointer.allocate(
            byteCount: entriesOffset + capacity * entryStride, alignment: MemoryLayout<hci_dev_req>.alignment)
        defer { request.deallocate() }
        request.initializeMemory(as: UInt8.self, repeating: 0)
        request.storeBytes(of: UInt16(capacity), toByteOffset: 0, as: UInt16.self)
        guard let base = request.baseAddress,
            Glibc.ioctl(socket, cbluez_hci_get_device_list_request(), base) == 0
        else {
            throw POSIXCallError.lastError(of: "ioctl(HCIGETDEVLIST)")
        }
        let count = min(Int(request.load(fromByteOffset: 0, as: UInt16.self)), capacity)
        return (0..<count).map { entry in
            request.load(fromByteOffset: entriesOffset + entry * entryStride, as: UInt16.self)
        }
    }

    public func deviceInfo(_ socket: Int32, device: UInt16) throws(POSIXCallError) -> KernelHCIDeviceInfo {
        var info = hci_dev_info()
        info.dev_id = device
        let result = withUnsafeMutablePointer(to: &info) { pointer in
            Glibc.ioctl(socket, cbluez_hci_get_device_info_request(), UnsafeMutableRawPointer(pointer))
        }
        guard result == 0 else { throw POSIXCallError.lastError(of: "ioctl(HCIGETDEVINFO)") }
        let name = withUnsafeBytes(of: info.name) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        let address = withUnsafeBytes(of: info.bdaddr.b) { Array($0) }
        return KernelHCIDeviceInfo(
            index: info.dev_id, name: name, addressBytes: address, flags: info.flags, type: info.type)
    }

    // Once bound, an HCI socket is read and written like any descriptor: one whole packet
    // per call (write, not send: the socket is not connected, and SIGPIPE cannot occur).
    private static let descriptorIO = SystemDescriptorIO(isSocket: false)

    public func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(POSIXCallError) -> Int {
        try Self.descriptorIO.read(descriptor, into: buffer)
    }

    public func write(_ descriptor: Int32, from bytes: UnsafeRawBufferPointer) throws(POSIXCallError) -> Int {
        try Self.descriptorIO.write(descriptor, from: bytes)
    }

    public func poll(_ descriptors: inout [pollfd], timeoutMilliseconds: Int32) throws(POSIXCallError) -> Int32 {
        try Self.descriptorIO.poll(&descriptors, timeoutMilliseconds: timeoutMilliseconds)
    }

    public func close(_ descriptor: Int32) {
        Self.descriptorIO.close(descriptor)
    }
}
#endif
