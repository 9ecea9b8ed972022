import Glibc
import HCI

/// Prints the message on standard error and ends the process: status 1 when either side
/// failed, 2 for usage errors. `_exit`, because either forwarding thread may get here and
/// nothing is buffered (every write is a raw one).
func fail(_ message: String, status: Int32 = 1) -> Never {
    _ = writeAll(STDERR_FILENO, Array("vhci-bridge: error: \(message)\n".utf8))
    _exit(status)
}

func errorText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

/// Writes every byte, across partial writes and interruptions.
func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Int32? {
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 {
            if errno == EINTR { continue }
            return errno
        }
        offset += written
    }
    return nil
}

/// Reads into `buffer`, retrying on EINTR; returns the byte count (0 at end of stream) or -errno.
func readSome(_ descriptor: Int32, _ buffer: inout [UInt8]) -> Int {
    while true {
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        if count >= 0 { return count }
        if errno != EINTR { return -Int(errno) }
    }
}

func connectTCP(_ endpoint: String) -> Int32 {
    guard let colon = endpoint.lastIndex(of: ":"), let port = UInt16(endpoint[endpoint.index(after: colon)...])
    else { fail("'\(endpoint)' is not HOST:PORT (for RootCanal: 127.0.0.1:6402)", status: 2) }
    let host = String(endpoint[..<colon])
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var found: UnsafeMutablePointer<addrinfo>?
    let lookup = getaddrinfo(host, String(port), &hints, &found)
    guard lookup == 0, let first = found else {
        fail("cannot resolve '\(host)': \(String(cString: gai_strerror(lookup)))", status: 2)
    }
    defer { freeaddrinfo(found) }
    var lastError: Int32 = 0
    var candidate: UnsafeMutablePointer<addrinfo>? = first
    while let info = candidate {
        let socket = Glibc.socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        if socket >= 0 {
            if Glibc.connect(socket, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 {
                // Commands and events are small and latency-bound: never wait to coalesce.
                var one: Int32 = 1
                setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return socket
            }
            lastError = errno
            close(socket)
        } else {
            lastError = errno
        }
        candidate = info.pointee.ai_next
    }
    fail("cannot connect to \(endpoint): \(errorText(lastError)); is RootCanal listening there (-hci_port)?")
}

func openVHCI() -> Int32 {
    let descriptor = open("/dev/vhci", O_RDWR | O_CLOEXEC)
    guard descriptor >= 0 else {
        let code = errno
        switch code {
        case ENOENT, ENODEV, ENXIO:
            fail("/dev/vhci: \(errorText(code)); load the module first: modprobe hci_vhci")
        case EACCES, EPERM:
            fail("/dev/vhci: \(errorText(code)); run as root")
        default:
            fail("/dev/vhci: \(errorText(code))")
        }
    }
    return descriptor
}

/// Asks hci_vhci for a primary controller at once (vendor packet FF 00) instead of after its
/// 1 s open timeout, and returns the index the kernel gave it. The answer is FF, the same
/// device-type byte, then the index as a little-endian u16 (drivers/bluetooth/hci_vhci.c,
/// __vhci_create_device).
func createController(_ vhci: Int32) -> Int {
    if let code = writeAll(vhci, [0xFF, 0x00]) { fail("/dev/vhci: creating the controller: \(errorText(code))") }
    var pollEntry = pollfd(fd: vhci, events: Int16(POLLIN), revents: 0)
    let ready = poll(&pollEntry, 1, 10_000)
    guard ready > 0 else { fail("/dev/vhci: the kernel did not answer the create request within 10 s") }
    var answer = [UInt8](repeating: 0, count: 16)
    let count = readSome(vhci, &answer)
    guard count == 4, answer[0] == 0xFF, answer[1] == 0x00 else {
        let shown = answer.prefix(max(count, 0)).map { String($0, radix: 16) }.joined(separator: " ")
        fail("/dev/vhci: unexpected answer to the create request (\(count) bytes: \(shown)); expected FF 00 and an index")
    }
    return Int(answer[2]) | Int(answer[3]) << 8
}

/// Kernel → controller: each read is one whole packet; TCP takes it in as many writes as needed.
func forwardKernelPackets(vhci: Int32, server: Int32, name: String, endpoint: String) -> Never {
    var buffer = [UInt8](repeating: 0, count: 1 + H4StreamParser.largestPossiblePayload + 4)
    while true {
        let count = readSome(vhci, &buffer)
        if count < 0 { fail("\(name): reading /dev/vhci: \(errorText(Int32(-count)))") }
        if count == 0 { fail("\(name): /dev/vhci closed") }
        if let code = writeAll(server, Array(buffer[..<count])) {
            fail("\(name): writing to \(endpoint): \(errorText(code)) (the controller went away)")
        }
    }
}

/// Controller → kernel: bytes in, whole packets out, one write each.
func forwardControllerPackets(vhci: Int32, server: Int32, name: String, endpoint: String) -> Never {
    var parser = H4StreamParser()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = readSome(server, &buffer)
        if count < 0 { fail("\(name): reading from \(endpoint): \(errorText(Int32(-count)))") }
        if count == 0 { fail("\(name): \(endpoint) closed the connection (the controller went away)") }
        let result = parser.parse(buffer[..<count])
        for packet in result.packets {
            let bytes = packet.h4Bytes
            var written: Int
            repeat {
                written = bytes.withUnsafeBytes { Glibc.write(vhci, $0.baseAddress, $0.count) }
            } while written < 0 && errno == EINTR
            // hci_vhci takes one whole packet per write, never part of one.
            guard written == bytes.count else {
                fail("\(name): writing a packet of \(bytes.count) bytes to /dev/vhci: "
                    + (written < 0 ? errorText() : "only \(written) taken"))
            }
        }
        if let failure = result.failure { fail("\(name): \(endpoint) sent a bad H4 stream: \(failure)") }
    }
}
