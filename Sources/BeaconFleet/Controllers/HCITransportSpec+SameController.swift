import HCITransports

extension HCITransportSpec {
    /// Whether both specs reach one physical controller: the same kernel device (on either
    /// channel) or the same serial port. A TCP server (RootCanal hands out a new controller
    /// per connection) and the virtual radio may give two.
    public func isSameController(as other: HCITransportSpec) -> Bool {
        switch (self, other) {
        case (.kernelSocket(let first), .kernelSocket(let second)),
            (.kernelSocket(let first), .kernelUserChannel(let second)),
            (.kernelUserChannel(let first), .kernelSocket(let second)),
            (.kernelUserChannel(let first), .kernelUserChannel(let second)):
            return first == second
        case (.serial(let first, _, _), .serial(let second, _, _)):
            return first == second
        default:
            return false
        }
    }
}
