import Synchronization

/// What a one-shot command keeps until the process exits instead of freeing it on the way
/// out: a validated fleet of 100 000 beacons is some 100 000 boxes, and releasing them one
/// by one walks all of them again (about 7 ms, 2 % of `fleet validate`) only for the kernel
/// to take the whole heap back a moment later. Compilers skip the same teardown of their
/// syntax trees for the same reason (clang's `-disable-free`). Only for values the command
/// is done with, just before it returns: nothing here is ever read again.
enum KeptUntilExit {
    private static let values = Mutex<[any Sendable]>([])

    static func keep(_ value: some Sendable) {
        values.withLock { $0.append(value) }
    }
}
