import BeaconCore
import Testing

@testable import VirtualRadio

@Suite("The air's work queue")
struct WorkQueueTests {
    func work(_ time: UInt64, slot: Int = 0, key: UInt16 = 0, channel: Int = 0) -> ScheduledWork {
        ScheduledWork(time: time, slot: slot, key: key, kind: .advertisingPDU, channelIndex: channel, generation: 1)
    }

    @Test("work comes out in time order, ties by controller, set and channel, whatever the order it went in")
    func ordering() {
        let items = [
            work(500), work(100, slot: 2), work(100, slot: 1, key: 3), work(100, slot: 1, key: 2, channel: 1),
            work(100, slot: 1, key: 2), work(0), work(700), work(300, slot: 9),
        ]
        var generator = SeededGenerator(seed: 99)
        for _ in 0..<20 {
            var queue = WorkQueue()
            for item in items.shuffled(using: &generator) {
                queue.push(item)
            }
            var popped: [ScheduledWork] = []
            while let next = queue.popFirst(notAfter: AirTime(microseconds: 600)) {
                popped.append(next)
            }
            #expect(popped.map { [Int($0.time), $0.slot, Int($0.key), $0.channelIndex] } == [
                [0, 0, 0, 0], [100, 1, 2, 0], [100, 1, 2, 1], [100, 1, 3, 0], [100, 2, 0, 0], [300, 9, 0, 0], [500, 0, 0, 0],
            ])
            #expect(queue.nextTime == AirTime(microseconds: 700))
        }
    }

    @Test("a thousand random times come out sorted")
    func heapProperty() {
        var generator = SeededGenerator(seed: 5)
        var queue = WorkQueue()
        let times = (0..<1000).map { _ in generator.next(upperBound: UInt64(1_000_000)) }
        times.forEach { queue.push(work($0)) }
        var popped: [UInt64] = []
        while let next = queue.popFirst(notAfter: AirTime(microseconds: .max)) {
            popped.append(next.time)
        }
        #expect(popped == times.sorted())
        #expect(queue.nextTime == nil)
    }
}
