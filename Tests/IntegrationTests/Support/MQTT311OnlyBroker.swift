import Dispatch
import Glibc

/// A broker that speaks MQTT 3.1.1 only, as far as a client's fallback needs: to a CONNECT
/// of protocol level 5 it answers as a 3.1.1 broker does, CONNACK "unacceptable protocol
/// version" (3.1.1 §3.2.2.3, a 3.1.1 CONNACK with code 1) and a close; a level-4 CONNECT is
/// accepted (CONNACK 0) and held open until the client leaves. The CONNECT levels it saw
/// are reported through `levels`, in order.
///
/// Blocking sockets on a queue of its own (not Swift's pool), each read bounded by a 30 s
/// receive timeout, so that a client that never comes cannot hang the test.
final class MQTT311OnlyBroker: Sendable {
    let port: UInt16
    let levels: AsyncStream<UInt8>
    private let listener: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw LoopbackSocketError(description: "socket() failed: errno \(errno)") }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        var address = LoopbackSocket.address(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var chosen = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &chosen) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard bound == 0, named == 0, listen(descriptor, 4) == 0 else {
            close(descriptor)
            throw LoopbackSocketError(description: "cannot listen on 127.0.0.1: errno \(errno)")
        }
        listener = descriptor
        port = UInt16(bigEndian: chosen.sin_port)
        let (levels, reporting) = AsyncStream.makeStream(of: UInt8.self)
        self.levels = levels
        DispatchQueue(label: "beaconctl.test.mqtt311-broker").async {
            defer { reporting.finish() }
            // Two connections: the refused MQTT 5 attempt, then the 3.1.1 one.
            for _ in 0..<2 {
                let connection = accept(descriptor, nil, nil)
                guard connection >= 0 else { return }
                defer { close(connection) }
                var limit = timeval(tv_sec: 30, tv_usec: 0)
                _ = setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                guard let level = Self.connectLevel(connection) else { return }
                reporting.yield(level)
                if level == 4 {
                    Self.send([0x20, 0x02, 0x00, 0x00], to: connection)
                    // Held until the client disconnects (read returns 0) or the timeout.
                    var sink = [UInt8](repeating: 0, count: 256)
                    while read(connection, &sink, sink.count) > 0 {}
                } else {
                    Self.send([0x20, 0x02, 0x00, 0x01], to: connection)
                }
            }
        }
    }

    deinit {
        close(listener)
    }

    /// The protocol level of the CONNECT on `connection`: fixed header 0x10, a remaining
    /// length (MQTT §2.2.3 variable byte integer), "MQTT" as a string, the level byte.
    private static func connectLevel(_ connection: Int32) -> UInt8? {
        guard let first = readBytes(connection, 1), first[0] == 0x10 else { return nil }
        for _ in 0..<4 {
            guard let byte = readBytes(connection, 1) else { return nil }
            if byte[0] & 0x80 == 0 { break }
        }
        guard let header = readBytes(connection, 7), header[0] == 0, header[1] == 4 else { return nil }
        return header[6]
    }

    private static func readBytes(_ connection: Int32, _ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes[filled...].withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
            guard got > 0 else { return nil }
            filled += got
        }
        return bytes
    }

    private static func send(_ bytes: [UInt8], to connection: Int32) {
        _ = bytes.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
    }
}
