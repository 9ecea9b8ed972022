import BeaconCore
import BeaconTestKit
import Testing

@testable import BeaconFleet

/// What the audit judges from a gateway's sightings (docs/gateways.md, "What beaconctl can
/// and cannot judge from them"): never an interval from a gateway's cadence, never a
/// measured power it does not publish.
@Suite("gateway sightings judged for what they can say")
struct GatewayEvidenceTests {
    typealias F = GatewayFixtures
    typealias Script = VerificationScript

    static let door = Script.identity(minor: 1)

    /// `count` sightings `every` seconds apart from one receiver, vouching for `evidence`.
    static func reports(
        _ identity: BeaconIdentity = door, power: Int8 = -59, every interval: Double, count: Int, from start: Double = 0,
        receiver: String = "living_room (espresense)", address: String = Script.deviceA, evidence: SightingEvidence
    ) -> [Sighting] {
        Script.train(identity, power: power, address: address, from: start, every: interval, count: count, receiver: receiver)
            .map { sighting in
                var sighting = sighting
                sighting.evidence = evidence
                return sighting
            }
    }

    // MARK: What each gateway's sightings vouch for

    @Test("the broker input marks each gateway's sightings: beaconctl's vouch for all, the throttling gateways' not for the interval, room-assistant's not for the power either")
    func marking() throws {
        let messages: [(GatewayKind, F.Message, String, SightingEvidence)] = [
            (.beaconctl, F.Message(topic: "beaconctl/sightings/hall", payload: Self.beaconctlLine), "beaconctl", .complete),
            (.espresense, F.espresenseV4, "espresense", [.measuredPower]),
            (.theengs, F.theengsSignedMajor, "home", [.measuredPower]),
            (.openMQTTGateway, F.omgSignedMajor, "home", [.measuredPower]),
            (.mqttRoom, F.mqttRoomBeacon, "room_presence", [.measuredPower]),
            (.roomAssistant, F.roomAssistantBeacon, "room_presence", []),
            (.monitor, F.monitorBeacon, "monitor", [.measuredPower]),
        ]
        for (kind, message, base, evidence) in messages {
            #expect(kind.decoder.sightingEvidence == evidence, "\(kind)")
            let reading = kind.decoder.readMarkingEvidence(topic: message.topic, payload: message.bytes, base: base, arrivalTime: 1)
            guard case .sightings(let sightings) = reading, !sightings.isEmpty else {
                Issue.record("\(kind): \(reading)")
                continue
            }
            #expect(sightings.allSatisfy { $0.evidence == evidence }, "\(kind): \(sightings)")
            // Everything else is the decoder's reading, unchanged.
            guard case .sightings(let plain) = kind.decoder.read(topic: message.topic, payload: message.bytes, base: base, arrivalTime: 1)
            else { continue }
            #expect(plain.map { var copy = $0; copy.evidence = evidence; return copy } == sightings, "\(kind)")
        }
        // Not sightings: passed through as they are.
        #expect(ESPresenseGatewayDecoder.readMarkingEvidence(
            topic: F.espresenseOnline.topic, payload: F.espresenseOnline.bytes, base: "espresense", arrivalTime: 1)
            == .receiverStatus(receiver: "living_room (espresense)", online: true))
    }

    static let beaconctlLine = #"{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":2,"measured_power":-59,"address":"C4:5B:BE:00:00:01","address_random":false,"rssi":-60,"time":5,"receiver":"hall"}"#

    // MARK: The one-shot pass

    @Test("ESPresense's one report per 5 s: decided ok once settled, with no interval figure; the same gaps from a controller are slow")
    func throttledReportsAreNotSlow() throws {
        let plan = try Script.plan([Script.beacon("door", minor: 1)])
        let policy = VerificationPolicy(timeout: .seconds(60))
        var feed = VerificationFeed(plan, policy: policy)
        feed.play(Self.reports(every: 5, count: 3, evidence: [.measuredPower]))
        feed.advance(to: 11)
        let verdict = try #require(feed.verdict("door"), "decided once settled, not left to the timeout")
        #expect(verdict.status == .ok)
        #expect(verdict.findings.isEmpty)
        #expect(verdict.decidedEarly)
        #expect(verdict.observation.addresses.allSatisfy { $0.eventsByReceiver.isEmpty && $0.shortestGap == nil })
        #expect(verdict.observation.heardOnlyThroughGateways)
        #expect(verdict.observation.receivers.map(\.receiver) == ["living_room (espresense)"])
        let result = try #require(feed.result)
        let explanation = verdict.explanation(in: result)
        #expect(explanation.contains("interval not judged (heard only through gateways that throttle)"), "\(explanation)")
        #expect(!explanation.contains("shortest gap"), "\(explanation)")

        // The control: the same gaps from a receiver that reports every advertisement.
        var controller = VerificationFeed(plan, policy: policy)
        controller.play(Self.reports(every: 5, count: 3, receiver: "hci0", evidence: .complete))
        controller.advance(to: 60)
        #expect(controller.verdict("door")?.status == .slow)
    }

    @Test("a throttling gateway beside a controller: the controller's gaps decide the interval, fast or slow")
    func controllerBesideGateway() throws {
        let plan = try Script.plan([Script.beacon("door", minor: 1)])
        var fast = VerificationFeed(plan, policy: VerificationPolicy(timeout: .seconds(60)))
        fast.play(Self.reports(every: 5, count: 3, evidence: [.measuredPower]) + Self.reports(every: 0.1, count: 2, from: 0.05, receiver: "hci0", evidence: .complete))
        fast.advance(to: 11)
        let verdict = try #require(fast.verdict("door"))
        #expect(verdict.status == .ok)
        #expect(verdict.observation.addresses.first?.eventsByReceiver.map(\.receiver) == ["hci0"])
        #expect(verdict.observation.addresses.first?.shortestGap == .milliseconds(100))

        var slow = VerificationFeed(plan, policy: VerificationPolicy(timeout: .seconds(60)))
        slow.play(Self.reports(every: 5, count: 3, evidence: [.measuredPower]) + Self.reports(every: 2, count: 3, from: 0.05, receiver: "hci0", evidence: .complete))
        slow.advance(to: 60)
        #expect(slow.verdict("door")?.status == .slow, "\(String(describing: slow.verdict("door")))")
    }

    @Test("room-assistant's placeholder measured power is never judged: ok, the beacon's power unknown")
    func placeholderPowerIsNotJudged() throws {
        var feed = VerificationFeed(try Script.plan([Script.beacon("door", minor: 1, power: .calibrated(-59))]), policy: VerificationPolicy(timeout: .seconds(60)))
        feed.play(Self.reports(
            power: MQTTRoomGatewayDecoder.unknownMeasuredPower, every: 2, count: 3, receiver: "hallway (room-assistant)", evidence: []))
        feed.advance(to: 5)
        let verdict = try #require(feed.verdict("door"))
        #expect(verdict.status == .ok)
        #expect(verdict.observation.measuredPowers.isEmpty)
        #expect(verdict.observation.addresses.allSatisfy { $0.measuredPowers.isEmpty })
        let explanation = verdict.explanation(in: try #require(feed.result))
        #expect(explanation.contains("measured power not published"), "\(explanation)")
    }

    @Test("a wrong power heard by a gateway that carries it is still wrong-power beside room-assistant's placeholder")
    func wrongPowerBesidePlaceholder() throws {
        var feed = VerificationFeed(try Script.plan([Script.beacon("door", minor: 1, power: .calibrated(-59))]), policy: VerificationPolicy(timeout: .seconds(60)))
        feed.play(
            Self.reports(power: MQTTRoomGatewayDecoder.unknownMeasuredPower, every: 2, count: 3, receiver: "hallway (room-assistant)", evidence: [])
                + Self.reports(power: -65, every: 5, count: 1, from: 0.5, evidence: [.measuredPower]))
        feed.advance(to: 10)
        let verdict = try #require(feed.verdict("door"))
        #expect(verdict.status == .wrongPower)
        #expect(verdict.observation.measuredPowers == [MeasuredPowerCount(value: -65, sightings: 1)])
    }

    @Test("weak from gateways alone says to listen longer, not to move the scanner")
    func weakThroughGateways() throws {
        var feed = VerificationFeed(try Script.plan([Script.beacon("door", minor: 1)]), policy: VerificationPolicy(timeout: .seconds(8)))
        feed.play(Self.reports(every: 5, count: 2, evidence: [.measuredPower]))
        feed.advance(to: 8)
        let verdict = try #require(feed.verdict("door"))
        #expect(verdict.status == .weak)
        let explanation = verdict.explanation(in: try #require(feed.result))
        #expect(explanation.contains("listen longer (its receivers' gateways report a beacon once every few seconds at most)"), "\(explanation)")
    }

    // MARK: The watch

    @Test("the watch: room-assistant's placeholder is not a wrong power, and does not hide one another gateway heard")
    func watchPlaceholderPower() throws {
        let plan = try Script.plan([Script.beacon("door", minor: 1, power: .calibrated(-59))])
        var audit = AuditFeed(plan: plan, configuration: ContinuousAudit.Configuration(silence: .seconds(20)))
        var events: [AuditEvent] = []
        for sighting in Self.reports(power: MQTTRoomGatewayDecoder.unknownMeasuredPower, every: 2, count: 2, receiver: "hallway (room-assistant)", evidence: []) {
            events += audit.observe(sighting)
        }
        #expect(events.map(\.state) == [.ok])
        #expect(events.first?.reason.contains("publishes no measured power") == true, "\(events)")
        for sighting in Self.reports(power: -65, every: 5, count: 1, from: 3, evidence: [.measuredPower])
            + Self.reports(power: MQTTRoomGatewayDecoder.unknownMeasuredPower, every: 2, count: 2, from: 4, receiver: "hallway (room-assistant)", evidence: []) {
            events += audit.observe(sighting)
        }
        #expect(events.map(\.state) == [.ok, .wrongPower], "\(events)")
        #expect(events.last?.reason.contains("advertises measured power -65 dBm") == true)
        #expect(Set(events.last?.receivers.map(\.receiver) ?? []) == ["hallway (room-assistant)", "living_room (espresense)"])
    }

    // MARK: How long to listen

    @Test("a timeout or a silence too short for a throttling gateway's reports is warned of, naming the slowest gateway and what to give")
    func pacing() {
        #expect(GatewayPacing.timeoutWarning(gateways: [.espresense], requiredSightings: 3, timeout: .seconds(10))
            == "espresense reports a beacon at most once every 5 s per receiver: 3 reports (the required sightings) can take 15 s, longer than --timeout 10 s, so a beacon heard by one receiver may come out weak; give --timeout 15 or more")
        #expect(GatewayPacing.timeoutWarning(gateways: [.espresense], requiredSightings: 3, timeout: .seconds(15)) == nil)
        #expect(GatewayPacing.timeoutWarning(gateways: [.espresense, .theengs], requiredSightings: 3, timeout: .seconds(25))?.hasPrefix("theengs reports") == true)
        #expect(GatewayPacing.timeoutWarning(gateways: [.beaconctl, .roomAssistant, .monitor], requiredSightings: 3, timeout: .seconds(1)) == nil)
        #expect(GatewayPacing.timeoutWarning(gateways: [.openMQTTGateway], requiredSightings: 3, timeout: nil) == nil)
        #expect(GatewayPacing.silenceWarning(gateways: [.beaconctl, .openMQTTGateway], silence: 30)
            == "openmqttgateway reports a beacon at most once every 55.5 s per receiver: --silence 30 s is shorter than two of its reports, so a beacon may come out missing between reports; give --silence 111 or more")
        #expect(GatewayPacing.silenceWarning(gateways: [.espresense], silence: 30) == nil)
    }
}
