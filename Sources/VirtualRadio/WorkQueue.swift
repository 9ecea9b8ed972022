/// Something the air must do at a given time.
struct ScheduledWork: Comparable {
    enum Kind: UInt8 {
        case advertisingPDU
        case advertisingTimeout
        case scanTimeout
        /// A link's other end went silent: the supervision timeout ran out (`key` is the handle).
        case linkSupervisionTimeout
    }

    var time: UInt64
    var slot: Int
    var key: UInt16
    var kind: Kind
    var channelIndex: Int
    var generation: UInt32

    /// Time first; ties are broken by controller, set and kind, never by the order in which
    /// the work was queued: that order depends on how host tasks interleaved, and the run
    /// must not.
    static func < (lhs: ScheduledWork, rhs: ScheduledWork) -> Bool {
        if lhs.time != rhs.time { return lhs.time < rhs.time }
        if lhs.slot != rhs.slot { return lhs.slot < rhs.slot }
        if lhs.key != rhs.key { return lhs.key < rhs.key }
        if lhs.kind != rhs.kind { return lhs.kind.rawValue < rhs.kind.rawValue }
        return lhs.channelIndex < rhs.channelIndex
    }

    static func == (lhs: ScheduledWork, rhs: ScheduledWork) -> Bool {
        !(lhs < rhs) && !(rhs < lhs)
    }
}

/// A binary min-heap of scheduled work: O(log n) to add and to take the earliest.
struct WorkQueue {
    private var heap: [ScheduledWork] = []

    /// When the earliest work is due.
    var nextTime: AirTime? { heap.first.map { AirTime(microseconds: $0.time) } }

    mutating func push(_ work: ScheduledWork) {
        heap.append(work)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child] < heap[parent] else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// The earliest work if it is due at or before `limit`.
    mutating func popFirst(notAfter limit: AirTime) -> ScheduledWork? {
        guard let first = heap.first, first.time <= limit.microseconds else { return nil }
        let last = heap.removeLast()
        guard !heap.isEmpty else { return first }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && heap[left] < heap[smallest] { smallest = left }
            if right < heap.count && heap[right] < heap[smallest] { smallest = right }
            guard smallest != parent else { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }
}
