import BeaconCore

/// Moments things fall due, soonest first: a binary min-heap of (due, slot), where a slot is
/// whatever its owner numbers (a beacon's index). Inserting and taking the soonest cost
/// O(log n) and nothing else looks at the others, so a fleet of any size costs the same
/// per deadline. Owners that move a deadline leave the old entry and skip it when it comes
/// out (they know which entry is current); the heap does not search. `Due` is the owner's
/// instant (`PassTime`); entries compare exactly.
struct DeadlineQueue<Due: Comparable & Sendable>: Sendable {
    private var heap: [(due: Due, slot: Int)] = []

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }

    /// The soonest due moment; `nil` when empty.
    var soonest: Due? { heap.first?.due }

    mutating func insert(_ slot: Int, due: Due) {
        heap.append((due, slot))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].due < heap[parent].due else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// The soonest entry, taken out, if it is due by `time`.
    mutating func popDue(by time: Due) -> (due: Due, slot: Int)? {
        guard let first = heap.first, first.due <= time else { return nil }
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].due < heap[smallest].due { smallest = left }
            if right < heap.count, heap[right].due < heap[smallest].due { smallest = right }
            guard smallest != parent else { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }
}
