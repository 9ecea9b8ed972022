import BeaconCore
import BeaconMQTT

/// `monitor --mqtt`: every region event and ranging report to `PREFIX/monitor/events` (one
/// JSON line each, as `monitor --format jsonl` writes them, docs/monitoring.md), and each
/// region's latest enter, exit or state event, retained, to `PREFIX/monitor/regions/ID`, so
/// that a dashboard connecting later sees every region's state at once. QoS 1 throughout.
public struct MQTTMonitorSink: MonitorReportSink {
    public let client: MQTTClient
    private let topics: MQTTTopics

    public init(client: MQTTClient, topics: MQTTTopics) {
        self.client = client
        self.topics = topics
    }

    public func report(_ events: [RegionEvent]) {
        for event in events {
            let line = Array(MonitorJSONLines.encode(event).utf8)
            client.publish(topic: topics.monitorEvents, payload: line)
            client.publish(topic: topics.monitorRegion(event.regionIdentifier), payload: line, retain: true)
        }
    }

    public func report(_ rangings: [RegionRanging]) {
        for ranging in rangings {
            client.publish(topic: topics.monitorEvents, payload: Array(MonitorJSONLines.encode(ranging).utf8))
        }
    }
}

/// Several sinks that each get every report, in order.
public struct MonitorReportSinks: MonitorReportSink {
    public let sinks: [any MonitorReportSink]

    public init(_ sinks: [any MonitorReportSink]) {
        self.sinks = sinks
    }

    public func report(_ events: [RegionEvent]) {
        guard !events.isEmpty else { return }
        for sink in sinks { sink.report(events) }
    }

    public func report(_ rangings: [RegionRanging]) {
        guard !rangings.isEmpty else { return }
        for sink in sinks { sink.report(rangings) }
    }
}

extension MQTTTopics {
    public var monitorEvents: String { "\(prefix)/monitor/events" }
    public func monitorRegion(_ id: String) -> String { "\(prefix)/monitor/regions/\(Self.level(id))" }
    /// `online` while a monitor or an audit publishing changes is connected, `offline`
    /// after it (retained; the last will says `offline`).
    public func status(role: String) -> String { "\(prefix)/\(role)/status" }
}
