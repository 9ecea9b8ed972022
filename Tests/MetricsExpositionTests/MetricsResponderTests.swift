import Foundation
import Glibc
import Testing

@testable import MetricsExposition

/// The responder against well-behaved, malformed, oversized, slow and too many clients. Every
/// client runs its blocking socket calls on a thread of its own and the test awaits what it
/// read: a client's read ends when the responder answers or closes, the event waited on.
@Suite("The metrics responder")
struct MetricsResponderTests {
    static let exposition = "# HELP up_total Up.\n# TYPE up_total counter\nup_total 1\n"

    static func responder(_ limits: MetricsResponder.Limits = .init()) throws -> MetricsResponder {
        try MetricsResponder(MetricsListenAddress(parsing: "127.0.0.1:0"), limits: limits) { exposition }
    }

    @Test("GET /metrics: 200, the exposition's content type and length, Connection: close; the query is ignored")
    func scrape() async throws {
        let responder = try Self.responder()
        defer { responder.stop() }
        #expect(responder.address.port != 0)
        for target in ["/metrics", "/metrics?debug=1"] {
            let answer = try await TestClient.exchange(responder.address.port, "GET \(target) HTTP/1.1\r\nHost: localhost\r\nAccept: */*\r\n\r\n")
            #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(answer)")
            #expect(answer.contains("\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"))
            #expect(answer.contains("\r\nContent-Length: \(Self.exposition.utf8.count)\r\n"))
            #expect(answer.contains("\r\nConnection: close\r\n"))
            #expect(answer.hasSuffix("\r\n\r\n" + Self.exposition))
        }
        // Bare line feeds end a head too (RFC 9112 §2.2), and HTTP/1.0 is answered.
        let bare = try await TestClient.exchange(responder.address.port, "GET /metrics HTTP/1.0\n\n")
        #expect(bare.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(bare)")
    }

    @Test(
        "other paths, other methods and malformed requests are refused with their status",
        arguments: [
            ("GET / HTTP/1.1\r\n\r\n", "404 Not Found"),
            ("GET /metricsx HTTP/1.1\r\n\r\n", "404 Not Found"),
            ("POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc", "405 Method Not Allowed"),
            ("HEAD /metrics HTTP/1.1\r\n\r\n", "405 Method Not Allowed"),
            ("HELLO\r\n\r\n", "400 Bad Request"),
            ("GET /metrics HTTP/2.0\r\n\r\n", "400 Bad Request"),
            ("GET  /metrics HTTP/1.1\r\n\r\n", "400 Bad Request"),
            ("GET metrics HTTP/1.1\r\n\r\n", "400 Bad Request"),
            ("G(T /metrics HTTP/1.1\r\n\r\n", "400 Bad Request"),
            ("\u{16}\u{03}\u{01}\u{02}\u{00}\n\n", "400 Bad Request"),
        ])
    func refusals(_ request: String, _ status: String) async throws {
        let responder = try Self.responder()
        defer { responder.stop() }
        let answer = try await TestClient.exchange(responder.address.port, request)
        #expect(answer.hasPrefix("HTTP/1.1 \(status)\r\n"), "\(answer)")
        #expect(!answer.contains("up_total"))
        if status.hasPrefix("405") { #expect(answer.contains("\r\nAllow: GET\r\n")) }
    }

    @Test("a head over the limit is refused with 431, whatever follows")
    func oversized() async throws {
        let responder = try Self.responder(.init(maximumRequestBytes: 8 * 1024))
        defer { responder.stop() }
        let request = "GET /metrics HTTP/1.1\r\nX-Filler: " + String(repeating: "a", count: 9000) + "\r\n\r\n"
        let answer = try await TestClient.exchange(responder.address.port, request)
        #expect(answer.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"), "\(answer.prefix(200))")
    }

    @Test("a client that never finishes its request is closed at the deadline, and others are answered meanwhile")
    func slowClient() async throws {
        let responder = try Self.responder(.init(maximumConnections: 4, deadline: .milliseconds(300)))
        defer { responder.stop() }
        let port = responder.address.port
        // Half a request line, then nothing: read until the responder closes it.
        async let slow = TestClient.exchange(port, "GET /met", finish: false)
        let answer = try await TestClient.exchange(port, "GET /metrics HTTP/1.1\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(try await slow == "", "closed without an answer")
    }

    @Test("at the connection limit a new client waits in the backlog until a place frees, then is answered")
    func connectionLimit() async throws {
        let responder = try Self.responder(.init(maximumConnections: 2, deadline: .milliseconds(300)))
        defer { responder.stop() }
        let port = responder.address.port
        async let first = TestClient.exchange(port, "", finish: false)
        async let second = TestClient.exchange(port, "", finish: false)
        let third = try await TestClient.exchange(port, "GET /metrics HTTP/1.1\r\n\r\n")
        #expect(third.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(try await first == "")
        #expect(try await second == "")
    }

    @Test("a client that closes at once, or mid-request, costs nothing: the next is answered")
    func abandoned() async throws {
        let responder = try Self.responder()
        defer { responder.stop() }
        let port = responder.address.port
        try await TestClient.abandon(port, after: "")
        try await TestClient.abandon(port, after: "GET /metr")
        let answer = try await TestClient.exchange(port, "GET /metrics HTTP/1.1\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
    }

    @Test("a port in use is refused, naming the address and what to do; stop frees it")
    func portInUse() throws {
        let first = try Self.responder()
        let address = first.address
        #expect {
            try MetricsResponder(address) { "" }
        } throws: { error in
            guard let error = error as? MetricsResponderError else { return false }
            return error.isAddressInUse && error.description.hasPrefix("127.0.0.1:\(address.port) is already in use")
                && error.description.contains("--metrics")
        }
        first.stop()
        first.stop()
        let again = try MetricsResponder(address) { "" }
        again.stop()
    }

    @Test("an address this host does not have is refused as such")
    func foreignAddress() {
        #expect {
            try MetricsResponder(MetricsListenAddress(parsing: "192.0.2.1:0")) { "" }
        } throws: { error in
            (error as? MetricsResponderError)?.description.contains("no interface of this host has the address 192.0.2.1") == true
        }
    }

    @Test("request heads: where they end, what they ask")
    func heads() {
        #expect(HTTPRequestHead.end(in: Array("GET / HTTP/1.1\r\nA: b\r\n\r\nrest".utf8)) == 24)
        #expect(HTTPRequestHead.end(in: Array("GET / HTTP/1.1\r\nA: b\r\n".utf8)) == nil)
        #expect(HTTPRequestHead.parse(Array("GET /metrics?x HTTP/1.1\r\n\r\n".utf8)) == .request(method: "GET", path: "/metrics"))
    }
}

/// A blocking HTTP client on a thread of its own (never on Swift's cooperative pool).
enum TestClient {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Connects to 127.0.0.1:`port`, sends `request`, half-closes unless `finish` is false,
    /// and returns everything read until the responder closes the connection.
    static func exchange(_ port: UInt16, _ request: String, finish: Bool = true) async throws -> String {
        try await onThread {
            let descriptor = try connect(port)
            defer { close(descriptor) }
            try send(descriptor, request)
            if finish { shutdown(descriptor, Int32(SHUT_WR)) }
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(descriptor, &chunk, chunk.count, 0)
                if count == 0 { break }
                // The safety timeout (SO_RCVTIMEO): a responder that never closes fails the test.
                guard count > 0 else { throw Failure(description: "read: \(String(cString: strerror(errno)))") }
                received += chunk[0..<count]
            }
            return String(decoding: received, as: UTF8.self)
        }
    }

    /// Connects, sends `text` and closes without reading.
    static func abandon(_ port: UInt16, after text: String) async throws {
        try await onThread {
            let descriptor = try connect(port)
            try send(descriptor, text)
            close(descriptor)
        }
    }

    private static func connect(_ port: UInt16) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket") }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw Failure(description: "connect: \(String(cString: strerror(errno)))")
        }
        return descriptor
    }

    private static func send(_ descriptor: Int32, _ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // The responder may close an oversized request before all of it is sent.
            guard count > 0 else { return }
            sent += count
        }
    }

    private static func onThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}
