#if canImport(Glibc)
import Glibc
import Synchronization

/// A small HTTP/1.1 responder for `GET /metrics` (RFC 9112 message syntax, one request per
/// connection, `Connection: close`), so that a monitoring system can scrape a running
/// command without a web server library.
///
/// It runs on one thread of its own, polling the listening socket and every open connection
/// without blocking: the measured work (the audit, the scan) never waits on it, and no
/// client can hold it. What a client may cost is bounded: at most `maximumConnections` open
/// at once (others wait in the kernel's backlog), `maximumRequestBytes` of request head, and
/// `deadline` from its connection to the last byte of its answer, after which it is closed.
public final class MetricsResponder: Sendable {
    public struct Limits: Hashable, Sendable {
        public var maximumConnections: Int
        public var maximumRequestBytes: Int
        /// From the connection to the end of the answer.
        public var deadline: Duration

        public init(maximumConnections: Int = 8, maximumRequestBytes: Int = 8 * 1024, deadline: Duration = .seconds(5)) {
            self.maximumConnections = max(1, maximumConnections)
            self.maximumRequestBytes = max(64, maximumRequestBytes)
            self.deadline = deadline
        }
    }

    /// The address as bound: with the port the kernel chose for port 0.
    public let address: MetricsListenAddress
    private let wakeWriter: Int32
    private let thread = Mutex<pthread_t?>(nil)

    /// Binds `address` and starts answering; `body` is asked for the exposition at each
    /// scrape, on the responder's thread.
    public init(
        _ address: MetricsListenAddress, limits: Limits = Limits(), body: @escaping @Sendable () -> String
    ) throws(MetricsResponderError) {
        let listener = try Self.listen(address)
        var bound = address
        bound.port = Self.boundPort(listener) ?? address.port
        self.address = bound

        var wake: [Int32] = [0, 0]
        guard pipe(&wake) == 0 else {
            let code = errno
            close(listener)
            throw MetricsResponderError(address: address, call: "pipe2", code: code)
        }
        for descriptor in wake { Self.makeNonBlockingAndPrivate(descriptor) }
        wakeWriter = wake[1]
        let loop = ResponderLoop(listener: listener, wake: wake[0], limits: limits, body: body)
        let context = Unmanaged.passRetained(loop).toOpaque()
        var started = pthread_t()
        let result = pthread_create(
            &started, nil,
            { context in
                guard let context else { return nil }
                Unmanaged<ResponderLoop>.fromOpaque(context).takeRetainedValue().run()
                return nil
            }, context)
        guard result == 0 else {
            Unmanaged<ResponderLoop>.fromOpaque(context).release()
            close(listener)
            close(wake[0])
            close(wake[1])
            throw MetricsResponderError(address: address, call: "pthread_create", code: result)
        }
        thread.withLock { $0 = started }
    }

    deinit { stop() }

    /// Stops answering, closes every connection and the listening socket, and returns once
    /// the responder's thread has ended. Calling it again does nothing. The wait is one turn
    /// of the responder's loop at most (it never blocks but in `poll`, which the wake byte
    /// ends), so a command may call it from a task.
    public func stop() {
        guard let running = thread.withLock({ current -> pthread_t? in
            defer { current = nil }
            return current
        }) else { return }
        var byte: UInt8 = 1
        _ = write(wakeWriter, &byte, 1)
        pthread_join(running, nil)
        close(wakeWriter)
    }

    /// O_NONBLOCK and FD_CLOEXEC (Glibc's module has no pipe2 or accept4).
    fileprivate static func makeNonBlockingAndPrivate(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC)
    }

    private static func listen(_ address: MetricsListenAddress) throws(MetricsResponderError) -> Int32 {
        let domain = address.family == .ipv6 ? AF_INET6 : AF_INET
        let descriptor = socket(domain, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw MetricsResponderError(address: address, call: "socket", code: errno) }
        // A restarted command binds its port again at once, though the previous one's
        // connections may linger in TIME_WAIT.
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var bound: Int32
        switch address.family {
        case .ipv4:
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = address.port.bigEndian
            _ = address.host.withCString { inet_pton(AF_INET, $0, &socketAddress.sin_addr) }
            bound = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .ipv6:
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = address.port.bigEndian
            _ = address.host.withCString { inet_pton(AF_INET6, $0, &socketAddress.sin6_addr) }
            bound = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
        if bound != 0 || Glibc.listen(descriptor, 16) != 0 {
            let code = errno
            close(descriptor)
            throw MetricsResponderError(address: address, call: bound != 0 ? "bind" : "listen", code: code)
        }
        return descriptor
    }

    private static func boundPort(_ descriptor: Int32) -> UInt16? {
        var storage = sockaddr_in6()
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { return nil }
        // sin_port and sin6_port sit at the same offset, after the family.
        return UInt16(bigEndian: storage.sin6_port)
    }
}

/// The responder's thread: everything it touches is its own.
private final class ResponderLoop: Sendable {
    private let listener: Int32
    private let wake: Int32
    private let limits: MetricsResponder.Limits
    private let body: @Sendable () -> String

    private struct Connection {
        let descriptor: Int32
        var deadline: ContinuousClock.Instant
        var received: [UInt8] = []
        /// Set once the request is read (or refused): the answer, and how much of it is sent.
        var answer: [UInt8]?
        var sent = 0
    }

    init(listener: Int32, wake: Int32, limits: MetricsResponder.Limits, body: @escaping @Sendable () -> String) {
        self.listener = listener
        self.wake = wake
        self.limits = limits
        self.body = body
    }

    func run() {
        // Signals belong to the command's own handling (SIGINT/SIGTERM stop it): none is
        // delivered to this thread.
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, nil)

        var connections: [Connection] = []
        defer {
            for connection in connections { close(connection.descriptor) }
            close(listener)
            close(wake)
        }
        var descriptors: [pollfd] = []
        while true {
            let now = ContinuousClock.now
            connections.removeAll { connection in
                guard connection.deadline <= now else { return false }
                close(connection.descriptor)
                return true
            }
            descriptors.removeAll(keepingCapacity: true)
            descriptors.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0))
            // At the limit the listener is not polled: new clients wait in the backlog.
            let accepting = connections.count < limits.maximumConnections
            if accepting { descriptors.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0)) }
            for connection in connections {
                descriptors.append(pollfd(fd: connection.descriptor, events: Int16(connection.answer == nil ? POLLIN : POLLOUT), revents: 0))
            }
            var timeout: Int32 = -1
            if let earliest = connections.map(\.deadline).min() {
                // Rounded up, and clamped: a finite number of milliseconds well within Int32.
                let milliseconds = ((earliest - now) / .milliseconds(1)).rounded(.up)
                timeout = Int32(max(0, min(milliseconds, 60_000)))
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if descriptors[0].revents != 0 { return }
            var index = 1
            if accepting {
                if descriptors[1].revents != 0 { accept(into: &connections) }
                index = 2
            }
            // The connections polled are the first ones of the list (accepted ones came after).
            var closed: [Int] = []
            for position in 0..<(descriptors.count - index) where descriptors[index + position].revents != 0 {
                if !serve(&connections[position], events: descriptors[index + position].revents) { closed.append(position) }
            }
            for position in closed.reversed() {
                close(connections[position].descriptor)
                connections.remove(at: position)
            }
        }
    }

    private func accept(into connections: inout [Connection]) {
        while connections.count < limits.maximumConnections {
            let descriptor = Glibc.accept(listener, nil, nil)
            guard descriptor >= 0 else { return }
            MetricsResponder.makeNonBlockingAndPrivate(descriptor)
            connections.append(Connection(descriptor: descriptor, deadline: ContinuousClock.now + limits.deadline))
        }
    }

    /// Reads or writes what the connection is ready for; `false` when it is done with.
    private func serve(_ connection: inout Connection, events: Int16) -> Bool {
        if connection.answer == nil {
            if events & Int16(POLLIN | POLLHUP | POLLERR) == 0 { return true }
            var chunk = [UInt8](repeating: 0, count: 2048)
            let count = recv(connection.descriptor, &chunk, chunk.count, 0)
            if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR }
            // Closed before a whole request: nothing to answer.
            if count == 0 { return false }
            connection.received.append(contentsOf: chunk[0..<count])
            let head = HTTPRequestHead.end(in: connection.received)
            if let head, head <= limits.maximumRequestBytes {
                connection.answer = answer(to: Array(connection.received[..<head]))
            } else if connection.received.count > limits.maximumRequestBytes {
                connection.answer = HTTPAnswer.refusal(431, "Request Header Fields Too Large", "the request's head is over \(limits.maximumRequestBytes) bytes")
            } else {
                return true
            }
        }
        guard let answer = connection.answer else { return true }
        while connection.sent < answer.count {
            let count = answer[connection.sent...].withUnsafeBytes {
                send(connection.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR }
            connection.sent += count
        }
        // Whatever else the client sent is read before closing: closing over unread bytes
        // resets the connection, which can destroy the answer before the client reads it.
        shutdown(connection.descriptor, Int32(SHUT_WR))
        var chunk = [UInt8](repeating: 0, count: 2048)
        while recv(connection.descriptor, &chunk, chunk.count, 0) > 0 {}
        return false
    }

    private func answer(to head: [UInt8]) -> [UInt8] {
        switch HTTPRequestHead.parse(head) {
        case .malformed(let why):
            return HTTPAnswer.refusal(400, "Bad Request", why)
        case .request(let method, let path):
            guard method == "GET" else {
                return HTTPAnswer.refusal(405, "Method Not Allowed", "only GET is answered", extraHeaders: "Allow: GET\r\n")
            }
            guard path == "/metrics" else { return HTTPAnswer.refusal(404, "Not Found", "the metrics are at /metrics") }
            return HTTPAnswer.make(200, "OK", contentType: MetricsResponder.contentType, body: body())
        }
    }
}

extension MetricsResponder {
    /// Prometheus's text exposition format, version 0.0.4.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"
}

/// The request line of a request's head (RFC 9112 §3): `METHOD SP TARGET SP HTTP/1.x`.
enum HTTPRequestHead: Equatable {
    case request(method: String, path: String)
    case malformed(String)

    /// Where the head ends (after its empty line), when it has: `\r\n\r\n`, or bare line
    /// feeds, which RFC 9112 §2.2 lets a recipient accept.
    static func end(in bytes: [UInt8]) -> Int? {
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0A {
                if index + 1 < bytes.count, bytes[index + 1] == 0x0A { return index + 2 }
                if index + 2 < bytes.count, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A { return index + 3 }
            }
            index += 1
        }
        return nil
    }

    static func parse(_ head: [UInt8]) -> HTTPRequestHead {
        guard let lineEnd = head.firstIndex(of: 0x0A) else { return .malformed("no request line") }
        var line = head[..<lineEnd]
        if line.last == 0x0D { line = line.dropLast() }
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return .malformed("the request line is not METHOD TARGET HTTP-VERSION") }
        // A method is a token (RFC 9110 §5.6.2): visible characters but delimiters.
        let method = parts[0]
        guard !method.isEmpty, method.count <= 16, method.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !"\"(),/:;<=>?@[\\]{}".utf8.contains($0) })
        else { return .malformed("the method is not a token") }
        guard parts[2].elementsEqual("HTTP/1.1".utf8) || parts[2].elementsEqual("HTTP/1.0".utf8) else {
            return .malformed("only HTTP/1.0 and HTTP/1.1 are spoken")
        }
        let target = parts[1]
        guard target.first == 0x2F, target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .malformed("the target is not a path (origin-form)")
        }
        // The query is ignored: /metrics?x=1 is /metrics.
        let path = target.split(separator: 0x3F, maxSplits: 1, omittingEmptySubsequences: false)[0]
        return .request(method: String(decoding: method, as: UTF8.self), path: String(decoding: path, as: UTF8.self))
    }
}

enum HTTPAnswer {
    static func make(_ status: Int, _ reason: String, contentType: String, body: String, extraHeaders: String = "") -> [UInt8] {
        let bytes = Array(body.utf8)
        let head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(contentType)\r\nContent-Length: \(bytes.count)\r\n"
            + extraHeaders + "Connection: close\r\n\r\n"
        return Array(head.utf8) + bytes
    }

    static func refusal(_ status: Int, _ reason: String, _ why: String, extraHeaders: String = "") -> [UInt8] {
        make(status, reason, contentType: "text/plain; charset=utf-8", body: "\(status) \(reason): \(why)\n", extraHeaders: extraHeaders)
    }
}
#endif

/// The metrics address could not be served.
public struct MetricsResponderError: Error, Hashable, Sendable, CustomStringConvertible {
    public var address: MetricsListenAddress
    /// The system call that failed.
    public var call: String
    public var code: Int32

    public init(address: MetricsListenAddress, call: String, code: Int32) {
        self.address = address
        self.call = call
        self.code = code
    }

    /// Another process holds the port: a restart may find it free (the previous run of the
    /// same service still ending); a wrong address will not.
    public var isAddressInUse: Bool { code == EADDRINUSE }

    public var description: String {
        switch code {
        case EADDRINUSE:
            "\(address) is already in use (another beaconctl, or another exporter): choose another port with --metrics, or stop the program that holds it (`ss -ltnp 'sport = :\(address.port)'` names it)"
        case EADDRNOTAVAIL:
            "\(address): no interface of this host has the address \(address.host): use 127.0.0.1, 0.0.0.0, [::1] or an address of this host"
        case EACCES:
            "\(address): port \(address.port) is below 1024 and needs privileges: use a port of 1024 or above"
        case EAFNOSUPPORT:
            "\(address): this host has no \(address.family == .ipv6 ? "IPv6" : "IPv4"): use \(address.family == .ipv6 ? "127.0.0.1" : "[::1]")"
        default:
            "\(address): \(call) failed: \(String(cString: strerror(code)))"
        }
    }
}
