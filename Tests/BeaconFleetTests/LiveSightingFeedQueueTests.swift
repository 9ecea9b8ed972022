import BeaconCore
import HCI
import Testing
@testable import BeaconFleet

@Suite("the live loop's queue under a flood")
struct LiveSightingFeedQueueTests {
    static func sighting(_ index: Int) -> Sighting {
        Sighting(
            advertisement: IBeaconAdvertisement(identity: BeaconIdentity(uuid: testUUID, major: 1, minor: UInt16(index)), measuredPower: -59),
            address: BluetoothAddress(truncating: UInt64(index)), addressIsRandom: true, rssi: -60, time: Double(index),
            clock: .elapsed, receiver: "flood")
    }

    @Test("a full queue drops sightings and ticks (the sightings counted), never a change of health, a receiver's status or the end")
    func controlInputsSurvive() async {
        let drops = DropCounter()
        let inputs = LiveInputQueue(limit: 4, drops: drops)
        func enqueue(_ input: LiveSightingFeed.Input) {
            inputs.push(input)
        }
        // The reader has fallen behind: everything is queued before anything is read.
        enqueue(.health(.lost(reason: "broker:1883: connection lost"), at: PassTime(sinceOrigin: .seconds(0))))
        for index in 0..<50 { enqueue(.sighting(Self.sighting(index))) }
        enqueue(.receiverStatus(ReceiverStatusChange(receiver: "store-1", online: false), at: PassTime(sinceOrigin: .seconds(1))))
        for index in 50..<100 { enqueue(.sighting(Self.sighting(index))) }
        enqueue(.tick(PassTime(sinceOrigin: .seconds(2))))
        enqueue(.health(.restored, at: PassTime(sinceOrigin: .seconds(3))))
        enqueue(.ended(PassTime(sinceOrigin: .seconds(4))))
        inputs.finish()

        var read: [String] = []
        for await input in inputs {
            switch input {
            case .sighting(let sighting): read.append("sighting \(sighting.identity.minor)")
            case .health(.lost, _): read.append("lost")
            case .health(.restored, _): read.append("restored")
            case .health(.incomplete, _): read.append("incomplete")
            case .receiverStatus: read.append("offline")
            case .ended: read.append("ended")
            case .tick: read.append("tick")
            case .failed: read.append("failed")
            }
        }
        // The newest four sightings and ticks, and every other input in its place.
        #expect(read == ["lost", "offline", "sighting 97", "sighting 98", "sighting 99", "tick", "restored", "ended"])
        // Every sighting is either read or counted as dropped.
        #expect(read.filter { $0.hasPrefix("sighting") }.count + drops.value == 100)
    }

    @Test("a reader that never catches up: the newest sightings, in order, every other one counted; holes cleared as it goes")
    func longFlood() async {
        let drops = DropCounter()
        let inputs = LiveInputQueue(limit: 10, drops: drops)
        inputs.push(.health(.lost(reason: "first"), at: PassTime(sinceOrigin: .seconds(0))))
        for index in 0..<20_000 { inputs.push(.sighting(Self.sighting(index % 60_000))) }
        inputs.finish()
        var minors: [Int] = []
        var lost = 0
        for await input in inputs {
            if case .sighting(let sighting) = input { minors.append(Int(sighting.identity.minor)) }
            if case .health = input { lost += 1 }
        }
        #expect(lost == 1)
        #expect(minors == Array(19_990..<20_000))
        #expect(drops.value == 19_990)
    }

    @Test("a reader and a writer at once: every input read once, in order, or counted as dropped")
    func readerAndWriter() async {
        let drops = DropCounter()
        let inputs = LiveInputQueue(limit: 64, drops: drops)
        let writer = Task {
            for index in 0..<50_000 {
                inputs.push(.sighting(Self.sighting(index)))
                if index % 5_000 == 0 { inputs.push(.health(.restored, at: PassTime(sinceOrigin: .seconds(index)))) }
            }
            inputs.finish()
        }
        var last = -1
        var ordered = true
        var read = 0
        var health = 0
        for await input in inputs {
            switch input {
            case .sighting(let sighting):
                let index = Int(sighting.time)
                if index <= last { ordered = false }
                last = index
                read += 1
            case .health: health += 1
            default: break
            }
        }
        await writer.value
        #expect(ordered)
        #expect(health == 10)
        #expect(read + drops.value == 50_000)
    }
}
