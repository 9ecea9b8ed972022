import BeaconCore
import BeaconMQTT

/// `verify --watch --mqtt`: every change of state to `PREFIX/audit/events` (one JSON line,
/// the schema of docs/verify.md), and each beacon's standing, retained, to
/// `PREFIX/audit/beacons/ID` — its latest change, then a `state` line with every statistics
/// report, so that a dashboard connecting later sees every beacon, and its last-seen time
/// keeps moving between changes; statistics and the summary to `PREFIX/audit/stats`.
/// QoS 1 throughout.
public struct MQTTAuditSink: AuditEventSink {
    public let client: MQTTClient
    private let topics: MQTTTopics

    public init(client: MQTTClient, topics: MQTTTopics) {
        self.client = client
        self.topics = topics
    }

    public func deliver(_ event: AuditEvent) {
        let line = Array(AuditJSONLines.encode(event).utf8)
        client.publish(topic: topics.auditEvents, payload: line)
        // Unexpected identities have no id: they are keyed by identity.
        let key = event.beaconID ?? event.identity.description
        client.publish(topic: topics.auditBeacon(key), payload: line, retain: true)
    }

    /// On the events topic, and retained on `PREFIX/audit/input`: whoever subscribes later
    /// still learns that the watch is blind.
    public func deliver(_ event: AuditInputEvent) {
        let line = Array(AuditJSONLines.encode(event).utf8)
        client.publish(topic: topics.auditEvents, payload: line)
        client.publish(topic: topics.auditInput, payload: line, retain: true)
    }

    public func deliver(_ report: AuditStatusReport) {
        for beacon in report.beacons where beacon.state != nil {
            let line = AuditJSONLines.encode(beacon, at: report.time)
            client.publish(topic: topics.auditBeacon(beacon.beacon.beaconID), payload: Array(line.utf8), retain: true)
        }
        client.publish(topic: topics.auditStats, payload: Array(AuditJSONLines.encode(report).utf8))
    }
}

extension MQTTTopics {
    public var auditEvents: String { "\(prefix)/audit/events" }
    public var auditStats: String { "\(prefix)/audit/stats" }
    /// The latest `input-lost`/`input-restored`, retained.
    public var auditInput: String { "\(prefix)/audit/input" }
    public func auditBeacon(_ id: String) -> String { "\(prefix)/audit/beacons/\(Self.level(id))" }
}
