import BeaconCore
import BeaconFleet
import BeaconTestKit
import Testing

/// A fleet's pass holds a verdict per beacon, so its records are compact: `BeaconObservation`
/// holds the common case (one device, one receiver, one measured power) inline, and
/// `ExpectedBeacon` shares one box between the plan and the verdicts. Whichever way they are
/// held, they must give back exactly what they were given, behave as values, and be equal
/// (and hash alike) when they hold the same.
@Suite("Compact verification records")
struct CompactVerificationRecordTests {
    private let identity = VerificationScript.identity(minor: 1)

    private func address(
        _ text: String = "C0:00:00:00:00:01", powers: [MeasuredPowerCount] = [MeasuredPowerCount(value: -59, sightings: 5)],
        events: [ReceiverEvents] = [ReceiverEvents(receiver: "hall", events: 5, shortestGap: .milliseconds(100), span: .milliseconds(400))], rssi: Int? = -61
    ) -> AddressObservation {
        AddressObservation(
            address: text, isRandom: true, isPrivate: false, sightings: 5, measuredPowers: powers, firstSeen: .origin, lastSeen: .seconds(0.4),
            eventsByReceiver: events, strongestRSSI: rssi)
    }

    private let hall = ReceiverObservation(
        receiver: "hall", sightings: 5, firstSeen: .origin, lastSeen: .seconds(0.4), strongestRSSI: -61, meanRSSI: -63.5, rssiSamples: 5)

    private func observation(
        addresses: [AddressObservation], powers: [MeasuredPowerCount], receivers: [ReceiverObservation]
    ) -> BeaconObservation {
        BeaconObservation(
            identity: identity, sightings: 5, addresses: addresses, measuredPowers: powers, firstSeen: .origin, lastSeen: .seconds(0.4),
            receivers: receivers)
    }

    @Test("every shape gives back the arrays it was given")
    func givesBackWhatItWasGiven() {
        let otherReceiver = ReceiverObservation(receiver: "door", sightings: 1, firstSeen: .seconds(0.2))
        let shapes: [(addresses: [AddressObservation], powers: [MeasuredPowerCount], receivers: [ReceiverObservation])] = [
            // The inline form's cases: evidence as usual, a gateway's (no events, no power, no
            // RSSI), a device without an address.
            ([address()], [MeasuredPowerCount(value: -59, sightings: 5)], [hall]),
            ([address(powers: [], events: [], rssi: nil)], [], [hall]),
            ([address("")], [MeasuredPowerCount(value: -59, sightings: 5)], [hall]),
            // Not the single form: a lower-case address, two devices, two receivers, events of
            // another receiver, powers that differ from the address's, a count of 0.
            ([address("c0:00:00:00:00:01")], [MeasuredPowerCount(value: -59, sightings: 5)], [hall]),
            ([address(), address("C0:00:00:00:00:02")], [MeasuredPowerCount(value: -59, sightings: 10)], [hall]),
            ([address()], [MeasuredPowerCount(value: -59, sightings: 5)], [hall, otherReceiver]),
            ([address(events: [ReceiverEvents(receiver: "door", events: 5, shortestGap: .milliseconds(100))])], [MeasuredPowerCount(value: -59, sightings: 5)], [hall]),
            ([address(powers: [MeasuredPowerCount(value: -59, sightings: 0)])], [MeasuredPowerCount(value: -59, sightings: 0)], [hall]),
        ]
        for index in shapes.indices {
            let shape = shapes[index]
            let made = observation(addresses: shape.addresses, powers: shape.powers, receivers: shape.receivers)
            #expect(made.addresses == shape.addresses, "shape \(index)")
            #expect(made.measuredPowers == shape.powers, "shape \(index)")
            #expect(made.receivers == shape.receivers, "shape \(index)")
            #expect(made.strongestRSSI == shape.addresses.compactMap(\.strongestRSSI).max(), "shape \(index)")
            #expect(made.heardOnlyThroughGateways == shape.addresses.allSatisfy(\.eventsByReceiver.isEmpty), "shape \(index)")
        }
    }

    @Test("an observation changed into the common case equals one made so, and hashes alike")
    func equalWhicheverWayMade() {
        let single = observation(addresses: [address()], powers: [MeasuredPowerCount(value: -59, sightings: 5)], receivers: [hall])
        var changed = observation(
            addresses: [address(), address("C0:00:00:00:00:02")], powers: [MeasuredPowerCount(value: -59, sightings: 5)], receivers: [hall])
        #expect(changed != single)
        changed.addresses = [address()]
        #expect(changed == single)
        #expect(changed.hashValue == single.hashValue)
        changed.receivers = [hall, ReceiverObservation(receiver: "door", firstSeen: .origin)]
        #expect(changed != single)
        #expect(changed.addresses == [address()])
    }

    @Test("an engine's verdict on one device heard by one receiver is the evidence as heard")
    func engineVerdict() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]))
        feed.play(VerificationScript.train(identity, address: "C0:00:00:00:00:01", count: 5, rssi: -60, receiver: "hall"))
        feed.advance(to: 10)
        let verdict = try #require(feed.verdict("door"))
        #expect(verdict.status == .ok)
        let observation = verdict.observation
        #expect(observation.addresses.map(\.address) == ["C0:00:00:00:00:01"])
        #expect(observation.addresses.first?.eventsByReceiver.map(\.receiver) == ["hall"])
        #expect(observation.addresses.first?.events == 5)
        #expect(observation.receivers.map(\.receiver) == ["hall"])
        #expect(observation.receivers.first?.meanRSSI == -60)
        #expect(observation.measuredPowers == [MeasuredPowerCount(value: -59, sightings: 5)])
        #expect(observation.strongestRSSI == -60)
    }

    @Test("an expected beacon behaves as a value: a changed copy leaves the original as it was")
    func expectedBeaconIsAValue() {
        let original = VerificationScript.beacon("door", minor: 1, mac: "C0:00:00:00:00:01")
        var changed = original
        #expect(changed == original)
        changed.name = "Front door"
        changed.intervalMilliseconds = 250
        #expect(original.name == nil)
        #expect(original.intervalMilliseconds == 100)
        #expect(changed.name == "Front door")
        #expect(changed.intervalMilliseconds == 250)
        #expect(changed.beaconID == "door")
        #expect(changed.expectedAddress == original.expectedAddress)
        #expect(changed != original)
        let remade = VerificationScript.beacon("door", minor: 1, mac: "C0:00:00:00:00:01")
        #expect(remade == original)
        #expect(remade.hashValue == original.hashValue)
        #expect(Set([original, remade, changed]).count == 2)
    }
}
