import BeaconCore
import BeaconMQTT
import Synchronization

/// `verify --watch --mqtt`: every change of state to `PREFIX/audit/events` (one JSON line,
/// the schema of docs/verify.md), and each beacon's standing (AuditStanding), retained, to
/// `PREFIX/audit/beacons/ID`: at the start an unconfirmed standing for every manifest beacon
/// (`unconfirm`), then the standing each change leaves, refreshed with every statistics
/// report, so that a dashboard connecting later sees every beacon, its last-seen time keeps
/// moving between changes, and no previous run's standing outlives the start. Statistics and
/// the summary to `PREFIX/audit/stats`. A receiver's change goes to the events topic too,
/// and retained to `PREFIX/audit/receivers/NAME`, its standing; with `receiverDiscovery`,
/// each receiver is announced to Home Assistant the first time the watch knows it. QoS 1
/// throughout.
public final class MQTTAuditSink: AuditEventSink {
    public let client: MQTTClient
    private let topics: MQTTTopics
    /// Each manifest beacon's latest change, by id: a refresh repeats its reason, addresses
    /// and receivers, so that the standing's fields stay the same. Bounded by the manifest.
    private let latestChanges = Mutex<[String: AuditEvent]>([:])
    /// Each battery's standing by beacon id, for the beacons the manifest gives battery
    /// settings (their standings always carry it). Bounded by the manifest.
    private let batteries = Mutex<[String: AuditStanding.Battery]>([:])
    private let receiverDiscovery: HomeAssistantDiscovery?
    /// Receivers announced to Home Assistant: bounded by the receivers the audit follows.
    private let announcedReceivers = Mutex<Set<String>>([])

    public init(client: MQTTClient, topics: MQTTTopics, receiverDiscovery: HomeAssistantDiscovery? = nil) {
        self.client = client
        self.topics = topics
        self.receiverDiscovery = receiverDiscovery
    }

    /// Replaces whatever standing the broker retains for `beacons` (a previous run's) with
    /// an unconfirmed one; call before the watch starts, so that every change follows it.
    public func unconfirm(_ beacons: [ExpectedBeacon]) {
        batteries.withLock { batteries in
            for beacon in beacons where beacon.battery != nil {
                batteries[beacon.beaconID] = AuditStanding.Battery(level: nil, standing: .unknown, readAt: nil)
            }
        }
        for beacon in beacons {
            publish(AuditStanding.unconfirmed(beacon), key: beacon.beaconID)
        }
    }

    /// On the events topic; the beacon's standing again, with its battery now.
    public func deliver(_ event: AuditBatteryEvent) {
        client.publish(topic: topics.auditEvents, payload: Array(AuditJSONLines.encode(event).utf8))
        batteries.withLock {
            $0[event.beaconID] = AuditStanding.Battery(
                level: event.level, standing: event.kind == .low ? .low : .ok, readAt: event.unixTime,
                daysLeft: event.forecast.daysLeft)
        }
        if let change = latestChanges.withLock({ $0[event.beaconID] }) {
            publish(AuditStanding(change), key: event.beaconID)
        }
    }

    public func deliver(_ event: AuditEvent) {
        client.publish(topic: topics.auditEvents, payload: Array(AuditJSONLines.encode(event).utf8))
        if let beaconID = event.beaconID {
            latestChanges.withLock { $0[beaconID] = event }
        }
        // Unexpected identities have no id: they are keyed by identity.
        publish(AuditStanding(event), key: event.beaconID ?? event.identity.description)
    }

    /// On the events topic, and retained on `PREFIX/audit/input`: whoever subscribes later
    /// still learns that the watch is blind.
    public func deliver(_ event: AuditInputEvent) {
        let line = Array(AuditJSONLines.encode(event).utf8)
        client.publish(topic: topics.auditEvents, payload: line)
        // The input's state: lost or back. A loss of some sightings, a stall or a receiver's
        // clock leaves it delivering.
        guard event.kind.isInputState else { return }
        client.publish(topic: topics.auditInput, payload: line, retain: true)
    }

    /// On the events topic, and retained on `PREFIX/audit/receivers/NAME`; announced to Home
    /// Assistant first when it is new (its entity reads that topic).
    public func deliver(_ event: AuditReceiverEvent) {
        if let receiverDiscovery, announcedReceivers.withLock({ $0.insert(event.receiver).inserted }) {
            let announcement = receiverDiscovery.announcement(forReceiver: event.receiver)
            client.publish(topic: announcement.topic, payload: Array(announcement.payload.utf8), retain: true)
        }
        let line = Array(AuditJSONLines.encode(event).utf8)
        client.publish(topic: topics.auditEvents, payload: line)
        client.publish(topic: topics.auditReceiver(event.receiver), payload: line, retain: true)
    }

    public func deliver(_ report: AuditStatusReport) {
        batteries.withLock { batteries in
            for standing in report.batteries where batteries[standing.beacon.beaconID] != nil {
                batteries[standing.beacon.beaconID] = AuditStanding.Battery(
                    level: standing.level, standing: standing.standing, readAt: standing.lastReadingUnixTime,
                    daysLeft: standing.forecast.daysLeft)
            }
        }
        let changes = latestChanges.withLock { $0 }
        for beacon in report.beacons {
            let id = beacon.beacon.beaconID
            publish(AuditStanding(beacon, at: report.time, latestChange: changes[id]), key: id)
        }
        client.publish(topic: topics.auditStats, payload: Array(AuditJSONLines.encode(report).utf8))
    }

    private func publish(_ standing: AuditStanding, key: String) {
        var standing = standing
        if let beaconID = standing.beaconID { standing.battery = batteries.withLock { $0[beaconID] } }
        client.publish(topic: topics.auditBeacon(key), payload: Array(standing.jsonLine.utf8), retain: true)
    }
}

extension MQTTTopics {
    public var auditEvents: String { "\(prefix)/audit/events" }
    public var auditStats: String { "\(prefix)/audit/stats" }
    /// The latest `input-lost`/`input-restored`, retained.
    public var auditInput: String { "\(prefix)/audit/input" }
    public func auditBeacon(_ id: String) -> String { "\(prefix)/audit/beacons/\(Self.level(id))" }
    /// A receiver's latest `receiver-offline`/`receiver-online`, retained.
    public func auditReceiver(_ name: String) -> String { "\(prefix)/audit/receivers/\(Self.level(name))" }
}
