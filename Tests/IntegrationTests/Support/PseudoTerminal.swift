import BeaconTestKit
import Foundation
import Glibc

/// A pseudo-terminal for a child process that must see a terminal (`isatty`): its follower
/// side becomes the child's standard input and error, as in a shell; the test reads what the
/// child writes there (its questions) from the leader side, and types on it.
final class PseudoTerminal: Sendable {
    /// Read by `BeaconctlProcess`'s reader thread, which keeps it (and its descriptor) open
    /// for as long as it reads; typed on by `type`.
    let leader: FileHandle
    /// The child's standard input and error.
    let follower: FileHandle

    private typealias OpenLeader = @convention(c) (Int32) -> Int32
    private typealias UnlockLeader = @convention(c) (Int32) -> Int32
    private typealias FollowerName = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32

    /// `posix_openpt(3)`, `unlockpt(3)` and `ptsname_r(3)`, looked up at run time: the C
    /// library has them, but Swift's Glibc module does not export them.
    private static func function<Function>(_ name: String, as type: Function.Type) -> Function? {
        dlsym(dlopen(nil, RTLD_NOW), name).map { unsafeBitCast($0, to: type) }
    }

    /// Both sides close-on-exec (not `openpty`, whose descriptors every child would
    /// inherit): the child gets the follower only as the copies Process makes of it.
    init() throws {
        guard let openLeader = Self.function("posix_openpt", as: OpenLeader.self),
            let unlock = Self.function("unlockpt", as: UnlockLeader.self),
            let followerName = Self.function("ptsname_r", as: FollowerName.self)
        else {
            throw BeaconctlProcessError("this C library has no posix_openpt, unlockpt or ptsname_r")
        }
        let leader = openLeader(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard leader >= 0 else { throw BeaconctlProcessError("posix_openpt failed: errno \(errno)") }
        var name = [CChar](repeating: 0, count: 256)
        // grantpt(3) is not needed: devpts gives the follower to the opener's user already.
        guard unlock(leader) == 0, followerName(leader, &name, name.count) == 0 else {
            let code = errno
            close(leader)
            throw BeaconctlProcessError("unlockpt or ptsname_r failed: errno \(code)")
        }
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let follower = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard follower >= 0 else {
            let code = errno
            close(leader)
            throw BeaconctlProcessError("cannot open \(path): errno \(code)")
        }
        self.leader = FileHandle(fileDescriptor: leader, closeOnDealloc: true)
        self.follower = FileHandle(fileDescriptor: follower, closeOnDealloc: true)
    }

    /// Types `text` on the terminal, as a person at the keyboard (written on a thread of its
    /// own: no blocking call on the cooperative pool). Control-D is "\u{04}".
    func type(_ text: String) async {
        let leader = leader
        let bytes = Array(text.utf8)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                var sent = 0
                while sent < bytes.count {
                    let count = bytes[sent...].withUnsafeBytes { write(leader.fileDescriptor, $0.baseAddress, $0.count) }
                    if count > 0 {
                        sent += count
                    } else if count < 0, errno == EAGAIN || errno == EINTR {
                        // The leader is non-blocking (its reader set it so): the terminal's
                        // input queue is full for now; it is drained by the child's reads.
                        var request = pollfd(fd: leader.fileDescriptor, events: Int16(POLLOUT), revents: 0)
                        _ = poll(&request, 1, 200)
                    } else {
                        break
                    }
                }
                done.resume()
            }
        }
    }
}
