import Glibc

/// Distinct TCP ports that were free a moment ago, found by letting the kernel choose them.
///
/// Between closing the probe sockets here and RootCanal binding the ports, another process
/// may take one: callers detect that and retry with fresh ports.
enum FreeLoopbackPorts {
    static func pick(_ count: Int) throws(LoopbackSocketError) -> [UInt16] {
        // Every probe socket stays bound until all are chosen, so the ports come out distinct.
        var descriptors: [Int32] = []
        defer { descriptors.forEach { _ = close($0) } }

        var ports: [UInt16] = []
        for _ in 0..<count {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw .systemCall("socket", port: 0) }
            descriptors.append(descriptor)

            var address = LoopbackSocket.address(port: 0)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw .systemCall("bind", port: 0) }

            var chosen = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &chosen) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    getsockname(descriptor, $0, &length)
                }
            }
            guard named == 0 else { throw .systemCall("getsockname", port: 0) }
            ports.append(UInt16(bigEndian: chosen.sin_port))
        }
        return ports
    }
}
