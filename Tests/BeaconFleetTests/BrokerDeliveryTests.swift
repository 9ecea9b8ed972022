import BeaconMQTT
import Logging
import Testing

@testable import BeaconFleet

/// What `scan --mqtt` says at its end: the count of sightings the broker acknowledged,
/// which tests and operators compare with what subscribers received, or what went wrong.
@Suite("scan --mqtt delivery summary")
struct ScanBrokerDeliveryTests {
    static func delivery(
        published: Int = 1234, dropped: Int = 0, drained: Bool = true, unacknowledged: Int = 0, refusal: String? = nil,
        refused: MQTTRefusedPublications = MQTTRefusedPublications(), unconfirmedAuthorisation: String? = nil
    ) -> SightingPublishing.Delivery {
        SightingPublishing.Delivery(
            broker: "mqtt://broker.example:1883/beaconctl", published: published, dropped: dropped, drained: drained,
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
}
