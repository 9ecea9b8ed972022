#if os(Linux)
import Glibc

/// H4 over a TCP connection: RootCanal's HCI port, Bumble controllers, HCI proxies.
public enum TCPClientTransport {
    public static let defaultConnectTimeout: Duration = .seconds(5)

    /// Connects to `host:port` (a name, an IPv4 address or a bare IPv6 address), trying each
    /// address the name resolves to for up to `connectTimeout`, and starts reading H4
    /// packets from the first that answers.
    ///
    /// The connection uses TCP_NODELAY: HCI commands are a few bytes each and the host waits
    /// for every answer, so Nagle's delay would only add latency.
    public static func connect(
        host: String, port: UInt16, connectTimeout: Duration = defaultConnectTimeout
    ) async throws(HCITransportError) -> any HCITransport {
        let name = HCITransportSpec.tcpClient(host: host, port: port).description
        // HOST:PORT as the spec prints it (IPv6 in brackets), for messages.
        let endpoint = String(name.dropFirst("tcp-client:".count))
        // Resolution and the connect wait both block; they run on a thread of their own.
        let connection: Result<Int32, HCITransportError>
        do {
            connection = try await POSIXThread.run {
                TCPConnector(host: host, port: port, endpoint: endpoint, timeout: connectTimeout)
                    .connect()
            }
        } catch {
            throw HCITransportError(.connectFailed, "\(name): cannot start connecting: \(error)")
        }
        let socket = try connection.get()
        let configuration = PacketLinkConfiguration(
            name: name, framing: .h4Stream(maximumPayloadLength: H4StreamParser.largestPossiblePayload)
        ) { failure in
            explain(failure, name: name, endpoint: endpoint)
        }
        return try POSIXPacketTransport.start(
            descriptor: socket, io: SystemDescriptorIO(isSocket: true), configuration: configuration)
    }

    static func explain(_ failure: LinkFailure, name: String, endpoint: String) -> HCITransportError {
        switch failure {
        case .endOfStream(let unfinished):
            return HCITransportError(
                .ioFailure,
                "\(name): the controller at \(endpoint) closed the connection"
                    + (unfinished > 0
                        ? " in the middle of a packet (\(unfinished) bytes of it received)" : "")
                    + "; did its process exit? (RootCanal aborts on a command it cannot parse)")
        case .readFailed(let error) where error.code == ECONNRESET,
            .writeFailed(let error) where error.code == ECONNRESET || error.code == EPIPE:
            return HCITransportError(
                .ioFailure,
                "\(name): the connection to \(endpoint) was dropped (\(error.reason)); "
                    + "did the controller's process exit?")
        case .framing(let error):
            return HCITransportError(
                .framing,
                "\(name): \(error.message). Is \(endpoint) an H4 endpoint (for RootCanal, its "
                    + "-hci_port, not its test or link ports)?")
        default:
            return PacketLinkConfiguration.genericExplanation(of: failure, name: name)
        }
    }
}

/// Resolves a host and connects to the first address that answers, within a timeout.
private struct TCPConnector {
    let host: String
    let port: UInt16
    /// `HOST:PORT` as the user wrote it, for messages.
    let endpoint: String
    let timeout: Duration

    private var name: String { "tcp-client:\(endpoint)" }

    func connect() -> Result<Int32, HCITransportError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var addresses: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &addresses)
        guard status == 0, let first = addresses else {
            let reason =
                status == EAI_SYSTEM
                ? POSIXCallError.lastError(of: "getaddrinfo").reason
                : String(cString: gai_strerror(status))
            return .failure(
                HCITransportError(
                    .connectFailed, "\(name): cannot resolve host \"\(host)\" (\(reason)); check the name"))
        }
        defer { freeaddrinfo(first) }

        var failures: [POSIXCallError] = []
        var timedOut = false
        var address: UnsafeMutablePointer<addrinfo>? = first
        while let candidate = address {
            switch attempt(candidate.pointee) {
            case .success(let socket):
                return .success(socket)
            case .failure(.timedOut):
                timedOut = true
            case .failure(.failed(let error)):
                failures.append(error)
            }
            address = candidate.pointee.ai_next
        }
        return .failure(explain(failures: failures, timedOut: timedOut))
    }

    private enum AttemptFailure: Error {
        case timedOut
        case failed(POSIXCallError)
    }

    /// One non-blocking connect, finished by `poll` so the timeout is ours, not the kernel's
    /// (which retries SYNs for about two minutes).
    private func attempt(_ address: addrinfo) -> Result<Int32, AttemptFailure> {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let socket = Glibc.socket(address.ai_family, type, address.ai_protocol)
        guard socket >= 0 else { return .failure(.failed(.lastError(of: "socket"))) }
        let result = finishConnecting(socket, to: address)
        if case .failure = result { Glibc.close(socket) }
        return result
    }

    private func finishConnecting(_ socket: Int32, to address: addrinfo) -> Result<Int32, AttemptFailure> {
        if Glibc.connect(socket, address.ai_addr, address.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else { return .failure(.failed(.lastError(of: "connect"))) }
            let deadline = ContinuousClock.now + timeout
            while true {
                let remaining = ContinuousClock.now.duration(to: deadline)
                guard remaining > .zero else { return .failure(.timedOut) }
                var descriptor = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
                let ready = Glibc.poll(&descriptor, 1, remaining.pollTimeoutMilliseconds)
                if ready < 0 {
                    if errno == EINTR { continue }
                    return .failure(.failed(.lastError(of: "poll")))
                }
                if ready == 0 { return .failure(.timedOut) }
                break
            }
            var pending: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(socket, SOL_SOCKET, SO_ERROR, &pending, &length) == 0 else {
                return .failure(.failed(.lastError(of: "getsockopt(SO_ERROR)")))
            }
            guard pending == 0 else { return .failure(.failed(POSIXCallError("connect", code: pending))) }
        }
        var enabled: Int32 = 1
        guard
            setsockopt(
                socket, Int32(IPPROTO_TCP), TCP_NODELAY, &enabled, socklen_t(MemoryLayout<Int32>.size)) == 0
        else { return .failure(.failed(.lastError(of: "setsockopt(TCP_NODELAY)"))) }
        return .success(socket)
    }

    private func explain(failures: [POSIXCallError], timedOut: Bool) -> HCITransportError {
        if failures.contains(where: { $0.code == ECONNREFUSED }) {
            return HCITransportError(
                .connectFailed,
                "\(name): connection refused: is the controller/RootCanal running on \(endpoint)?")
        }
        if timedOut {
            return HCITransportError(
                .connectFailed,
                "\(name): no answer from \(endpoint) within \(timeout.spokenForMessages): check the "
                    + "address and port, and that no firewall drops the connection")
        }
        if let unreachable = failures.first(where: { [ENETUNREACH, EHOSTUNREACH].contains($0.code) }) {
            return HCITransportError(
                .connectFailed,
                "\(name): \(endpoint) is unreachable (\(unreachable.reason)); check the address")
        }
        let detail = failures.map(\.description).joined(separator: "; ")
        return HCITransportError(.connectFailed, "\(name): cannot connect to \(endpoint): \(detail)")
    }
}
#endif
import HCI
