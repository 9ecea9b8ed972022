import BeaconCore
import BeaconTestKit
@testable import BeaconFleet
import Testing

/// The small structures the audit's cost per reception rests on.
@Suite("watch storage: identity table, compact lists, deadline queue")
struct WatchStorageTests {
    static let uuid = ProximityUUID(high: 0x89D6_E936_F61F_4227, low: 0xBCD2_6E94_C5A6_B2E3)

    @Test("the identity table finds every identity of a fleet numbered by majors and minors, and nothing else")
    func identityTable() {
        let identities = (1...300).flatMap { major in (1...20).map { BeaconIdentity(uuid: Self.uuid, major: UInt16(major), minor: UInt16($0)) } }
        let table = IdentityTable(identities)
        func find(_ identity: BeaconIdentity) -> Int? { table.index(of: identity) { identities[$0] } }
        for (index, identity) in identities.enumerated() { #expect(find(identity) == index) }
        #expect(find(BeaconIdentity(uuid: Self.uuid, major: 301, minor: 1)) == nil)
        #expect(find(BeaconIdentity(uuid: ProximityUUID(high: 1, low: 2), major: 1, minor: 1)) == nil)
        // The all-zero identity is a key like any other, not an empty slot.
        let zero = BeaconIdentity(uuid: ProximityUUID(high: 0, low: 0), major: 0, minor: 0)
        #expect(IdentityTable([zero]).index(of: zero) { _ in zero } == 0)
        #expect(IdentityTable([]).index(of: zero) { _ in zero } == nil)
        // A repeated identity keeps its first place.
        #expect(IdentityTable([zero, zero]).index(of: zero) { _ in zero } == 0)
    }

    @Test("a compact list keeps its order through appends, changes in place and removals")
    func compactList() {
        var list = CompactList<Int>()
        #expect(list.isEmpty)
        for value in 1...5 { list.append(value) }
        #expect(Array(list) == [1, 2, 3, 4, 5])
        list[0] += 10
        list[3] += 10
        #expect(Array(list) == [11, 2, 3, 14, 5])
        list.remove(at: 0)
        #expect(Array(list) == [2, 3, 14, 5])
        list.remove(at: 2)
        #expect(Array(list) == [2, 3, 5])
        list.remove(at: 0)
        list.remove(at: 0)
        list.remove(at: 0)
        #expect(list.isEmpty)
        list.append(7)
        #expect(Array(list) == [7])
    }

    @Test("the deadline queue gives the soonest first, only once due")
    func deadlineQueue() {
        var queue = DeadlineQueue<PassTime>()
        let dues = [5.0, 1, 9, 3, 3, 7, 0.5].map(PassTime.seconds)
        for (slot, due) in dues.enumerated() { queue.insert(slot, due: due) }
        #expect(queue.soonest == .seconds(0.5))
        #expect(queue.popDue(by: .seconds(0.4)) == nil)
        var taken: [PassTime] = []
        while let (due, _) = queue.popDue(by: .seconds(8)) { taken.append(due) }
        #expect(taken == [0.5, 1, 3, 3, 5, 7].map(PassTime.seconds))
        #expect(queue.count == 1)
        #expect(queue.popDue(by: .seconds(9))?.slot == 2)
        #expect(queue.isEmpty)
    }
}
