/// A short list kept in place: its first element inline, the rest in an array made only
/// when a second one arrives. An identity is sent by one device and heard by a receiver or
/// two nearly always, so a fleet's tracks hold no allocation of their own for them and a
/// reception touches the track's memory alone.
struct CompactList<Element>: RandomAccessCollection, MutableCollection {
    private var head: Element?
    private var tail: [Element] = []

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { head == nil ? 0 : 1 + tail.count }

    subscript(position: Int) -> Element {
        get {
            guard position > 0 else { return head! }
            return tail[position - 1]
        }
        _modify {
            if position == 0 {
                yield &head!
            } else {
                yield &tail[position - 1]
            }
        }
    }

    mutating func append(_ element: Element) {
        if head == nil {
            head = element
        } else {
            tail.append(element)
        }
    }

    /// Removes the element at `position`; the others keep their order.
    mutating func remove(at position: Int) {
        if position == 0 {
            head = tail.isEmpty ? nil : tail.removeFirst()
        } else {
            tail.remove(at: position - 1)
        }
    }
}

extension CompactList: Sendable where Element: Sendable {}
