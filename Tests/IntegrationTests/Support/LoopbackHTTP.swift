import Foundation

/// HTTP/1.1 to a server of a test on 127.0.0.1 (Home Assistant, Prometheus, beaconctl's
/// metrics): one request per connection, `Connection: close`, so the answer ends when the
/// connection does.
enum LoopbackHTTP {
    struct Answer: CustomStringConvertible {
        var status: Int
        var head: [String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        var description: String { "HTTP \(status): \(String(decoding: body.prefix(2000), as: UTF8.self))" }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static let requestTimeout: Duration = .seconds(60)

    /// Sends `head` (the request line and headers, without the empty line) and `body`.
    static func request(port: UInt16, head: String, body: [UInt8] = []) async throws -> Answer {
        let deadline = ContinuousClock.now + requestTimeout
        // A server busy with other work may leave its accept queue full for a while: the
        // connect shares the request's safety deadline rather than bet on 5 s.
        let socket = try await LoopbackSocket.connect(toPort: port, timeout: requestTimeout)
        defer { socket.close() }
        try socket.send(Array((head + "\r\n").utf8) + body)
        return try parse(try await socket.receiveUntilClosed(before: deadline))
    }

    static func get(port: UInt16, _ path: String) async throws -> Answer {
        try await request(port: port, head: "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n")
    }

    static func parse(_ bytes: [UInt8]) throws -> Answer {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else {
            throw Failure("an HTTP answer without a complete head: \(String(decoding: bytes.prefix(500), as: UTF8.self))")
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\r\n").map(String.init)
        let statusLine = head.first?.split(separator: " ") ?? []
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw Failure("an HTTP answer with no status: \(head.first ?? "")")
        }
        var body = Array(bytes[(end + separator.count)...])
        let chunked = head.dropFirst().contains { $0.lowercased().hasPrefix("transfer-encoding:") && $0.lowercased().contains("chunked") }
        if chunked { body = try dechunk(body) }
        return Answer(status: status, head: head, body: body)
    }

    /// RFC 9112 §7.1: size in hex, CRLF, data, CRLF; a zero size ends it.
    static func dechunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        while true {
            guard let lineEnd = bytes[index...].indices.first(where: { bytes[$0...].starts(with: [13, 10]) }) else {
                throw Failure("a chunked HTTP body cut short")
            }
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                throw Failure("a chunk size that is not hex: \(sizeText)")
            }
            if size == 0 { return output }
            let start = lineEnd + 2
            guard start + size <= bytes.count else { throw Failure("a chunked HTTP body cut short") }
            output += bytes[start..<(start + size)]
            index = start + size + 2
        }
    }
}
