#if os(Linux)
import ClockTestKit
import HCITestKit
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

    private typealias OpenLeader = @convention(c) (Int32) -> Int32
    private typealias UnlockLeader = @convention(c) (Int32) -> Int32
    private typealias FollowerName = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32

    /// `posix_openpt(3)`, `unlockpt(3)` and `ptsname_r(3)`, looked up at run time: the C
    /// library has them, but Swift's Glibc module does not export them.
    private static func function<Function>(_ name: String, as type: Function.Type) -> Function? {
        dlsym(dlopen(nil, RTLD_NOW), name).map { unsafeBitCast($0, to: type) }
    }

    static var isAvailable: Bool {
        function("posix_openpt", as: OpenLeader.self) != nil && function("unlockpt", as: UnlockLeader.self) != nil
            && function("ptsname_r", as: FollowerName.self) != nil
    }

    /// Both sides are opened close-on-exec (`posix_openpt` and `open` with O_CLOEXEC, not
    /// `openpty`, whose descriptors every child process would inherit): a child another
    /// test spawns meanwhile (a RootCanal, a beaconctl) must not keep the pair open, or
    /// closing it would be no hang-up.
    init() throws {
        guard let openLeader = Self.function("posix_openpt", as: OpenLeader.self),
            let unlock = Self.function("unlockpt", as: UnlockLeader.self),
            let followerName = Self.function("ptsname_r", as: FollowerName.self)
        else {
            throw TestFailure("this C library has no posix_openpt, unlockpt or ptsname_r")
        }
        let leader = openLeader(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard leader >= 0 else { throw POSIXCallError.lastError(of: "posix_openpt") }
        var name = [CChar](repeating: 0, count: 256)
        // grantpt(3) is not needed: devpts gives the follower to the opener's user already.
        guard unlock(leader) == 0, followerName(leader, &name, name.count) == 0 else {
            let error = POSIXCallError.lastError(of: "unlockpt")
            close(leader)
            throw error
        }
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let follower = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard follower >= 0 else {
            let error = POSIXCallError.lastError(of: "open")
            close(leader)
            throw error
        }
        self.leader = leader
        self.follower = follower
        self.path = path
        controller = H4TestPeer(descriptor: leader, isSocket: false)
    }

    /// The follower's settings as the transport left them (a leader reports its follower's).
    func settings() throws -> termios {
        var settings = termios()
        guard tcgetattr(leader, &settings) == 0 else { throw POSIXCallError.lastError(of: "tcgetattr") }
        return settings
    }

    /// The follower descriptor opened here stays open for the pair's lifetime, so the
    /// leader never sees a hang-up between the transport's close and the next open.
    deinit {
        close(follower)
    }
}
#endif
