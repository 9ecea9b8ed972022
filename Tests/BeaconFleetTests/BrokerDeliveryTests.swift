import BeaconMQTT
import Logging
import Testing

@testable import BeaconFleet

/// What a publishing client says at its end: for `scan --mqtt` the count of sightings the
/// broker acknowledged, which tests and operators compare with what subscribers received;
/// for any, what went wrong.
@Suite("what a publishing client says at its end")
struct BrokerDeliveryTests {
    static func delivery(
        _ content: BrokerDelivery.Content = .sightings, published: Int? = 1234, dropped: Int = 0, drained: Bool = true, unacknowledged: Int = 0, refusal: String? = nil,
        refused: MQTTRefusedPublications = MQTTRefusedPublications(), unconfirmedAuthorisation: String? = nil
    ) -> BrokerDelivery {
        BrokerDelivery(
            content: content, broker: "mqtt://broker.example:1883/beaconctl", published: published, dropped: dropped, drained: drained,
            unacknowledged: unacknowledged, maximumPendingMessages: 10_000, refusal: refusal, refused: refused,
            unconfirmedAuthorisation: unconfirmedAuthorisation)
    }

    @Test("everything acknowledged: one notice with the count of sightings published")
    func delivered() {
        let delivery = Self.delivery()
        #expect(delivery.delivered)
        #expect(delivery.summary.map(\.level) == [.notice])
        #expect(delivery.summary.map(\.message) == ["published 1234 sightings to mqtt://broker.example:1883/beaconctl, every one acknowledged"])
        #expect(Self.delivery(published: 1).summary.map(\.message) == ["published 1 sighting to mqtt://broker.example:1883/beaconctl, every one acknowledged"])
    }

    @Test("no count is claimed when anything was not delivered; each reason is an error")
    func notDelivered() {
        let unacknowledged = Self.delivery(drained: false, unacknowledged: 3)
        #expect(!unacknowledged.delivered)
        #expect(unacknowledged.summary.map(\.level) == [.error])
        #expect(unacknowledged.summary[0].message.hasPrefix("mqtt://broker.example:1883/beaconctl did not acknowledge 3 messages within 10 s"))

        let dropped = Self.delivery(dropped: 64)
        #expect(!dropped.delivered)
        #expect(dropped.summary.map(\.message) == [
            "64 sightings were dropped: the broker was away and 10000 messages were already waiting for it"
        ])

        #expect(Self.delivery(dropped: 1).summary.map(\.message) == [
            "1 sighting was dropped: the broker was away and 10000 messages were already waiting for it"
        ])

        let refused = Self.delivery(refusal: "the broker refused the connection")
        #expect(!refused.delivered)
        #expect(refused.summary.map(\.message) == ["the broker refused the connection; the sightings were not delivered"])

        // A wait that ran out is a failure even if the count reads 0 by then.
        #expect(!Self.delivery(drained: false, unacknowledged: 0).delivered)
    }

    @Test("sightings the broker refused (MQTT 5 PUBACK) are not delivered and never counted as acknowledged")
    func refusedByTheBroker() {
        var refused = MQTTRefusedPublications()
        refused.messages = 2
        refused.items = 70
        refused.reasons = ["not authorized (0x87)": 2]
        refused.topics = ["beaconctl/sightings/store-12"]
        let delivery = Self.delivery(published: 100, refused: refused)
        #expect(!delivery.delivered)
        #expect(delivery.summary.map(\.level) == [.error])
        #expect(delivery.summary[0].message == "mqtt://broker.example:1883/beaconctl refused 70 of the 100 sightings published (not authorized (0x87) on beaconctl/sightings/store-12): they were not delivered; the broker's ACL must let this client write there")
        #expect(!delivery.summary.contains { $0.message.contains("acknowledged") })
    }

    @Test("under MQTT 3.1.1 the count comes with the notice that authorisation cannot be confirmed")
    func unconfirmedUnderMQTT311() {
        let delivery = Self.delivery(unconfirmedAuthorisation: "cannot be confirmed")
        #expect(delivery.delivered)
        #expect(delivery.summary.map(\.message) == [
            "published 1234 sightings to mqtt://broker.example:1883/beaconctl, every one acknowledged", "cannot be confirmed",
        ])
    }

    /// `monitor --mqtt` and `verify --watch --mqtt` end through the same words, counting
    /// their reports in messages, one each, and saying no count when all went well.
    @Test("reports: the same reasons, counted in messages of what was published; no count when all was delivered")
    func reports() {
        let events = BrokerDelivery.Content.reports("region events")
        #expect(Self.delivery(events, published: nil).summary.isEmpty)
        #expect(Self.delivery(events, published: nil).delivered)
        #expect(Self.delivery(events, published: nil, unconfirmedAuthorisation: "cannot be confirmed").summary.map(\.message) == ["cannot be confirmed"])

        let unacknowledged = Self.delivery(events, published: nil, drained: false, unacknowledged: 1)
        #expect(!unacknowledged.delivered)
        #expect(unacknowledged.summary.map(\.message) == [
            "mqtt://broker.example:1883/beaconctl did not acknowledge 1 message within 10 s: some of the last region events were not delivered"
        ])

        #expect(Self.delivery(events, published: nil, dropped: 3).summary.map(\.message) == [
            "3 messages of region events were dropped: the broker was away and 10000 messages were already waiting for it"
        ])
        #expect(Self.delivery(events, published: nil, refusal: "the broker refused the connection").summary.map(\.message) == [
            "the broker refused the connection; the region events were not delivered"
        ])

        var refused = MQTTRefusedPublications()
        refused.messages = 2
        refused.items = 2
        refused.reasons = ["not authorized (0x87)": 2]
        refused.topics = ["beaconctl/monitor/events"]
        let delivery = Self.delivery(.reports("audit changes"), published: nil, refused: refused)
        #expect(!delivery.delivered)
        #expect(delivery.summary.map(\.message) == [
            "mqtt://broker.example:1883/beaconctl refused 2 messages of audit changes (not authorized (0x87) on beaconctl/monitor/events): they were not delivered; the broker's ACL must let this client write there"
        ])
    }
}
