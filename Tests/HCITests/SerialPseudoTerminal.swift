#if os(Linux)
import BeaconTestKit
import Glibc

@testable import HCI
import HCITransports

/// A pseudo-terminal pair: the transport opens the follower side by its path, as it would
/// a USB dongle's tty, and the test plays the controller on the leader side. A pty takes
/// the same termios calls as a UART (the speed is recorded, not used).
final class SerialPseudoTerminal: Sendable {
    /// The leader side, played by the test as the controller; closes the leader with it.
    let controller: H4TestPeer
    private let leader: Int32
    /// The follower's path, e.g. /dev/pts/3.
    let path: String
    private let follower: Int32

    private typealias OpenPTY =
        @convention(c) (
            UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<CChar>?,
            UnsafeRawPointer?, UnsafeRawPointer?
        ) -> Int32

    /// `openpty(3)`, looked up at run time: the C library has it, but Swift's Glibc module
    /// does not export <pty.h>.
    static var isAvailable: Bool { dlsym(dlopen(nil, RTLD_NOW), "openpty") != nil }

    init() throws {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "openpty") else {
            throw TestFailure("this C library has no openpty")
        }
        let openPTY = unsafeBitCast(symbol, to: OpenPTY.self)
        var leader: Int32 = -1
        var follower: Int32 = -1
        var name = [CChar](repeating: 0, count: 256)
        guard openPTY(&leader, &follower, &name, nil, nil) == 0 else {
            throw POSIXCallError.lastError(of: "openpty")
        }
        self.leader = leader
        self.follower = follower
        controller = H4TestPeer(descriptor: leader, isSocket: false)
        path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The follower's settings as the transport left them (a leader reports its follower's).
    func settings() throws -> termios {
        var settings = termios()
        guard tcgetattr(leader, &settings) == 0 else { throw POSIXCallError.lastError(of: "tcgetattr") }
        return settings
    }

    /// The follower descriptor openpty gave us stays open for the pair's lifetime, so the
    /// leader never sees a hang-up between the transport's close and the next open.
    deinit {
        close(follower)
    }
}
#endif
