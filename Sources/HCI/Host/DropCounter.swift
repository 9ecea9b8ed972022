import Synchronization

/// Counts what a bounded queue had to drop, so that the loss reaches whoever reports on
/// what came through. Every queue between a controller and a verdict drops the oldest
/// element when it is full (a slow consumer must never slow the controller down or grow
/// memory without bound) and counts it here; nothing is lost silently.
public final class DropCounter: Sendable {
    private let count = Atomic<Int>(0)

    public init() {}

    public func add(_ dropped: Int) {
        count.add(dropped, ordering: .relaxed)
    }

    public var value: Int { count.load(ordering: .relaxed) }
}
