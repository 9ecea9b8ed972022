import BeaconCore
import BeaconFleet
import BeaconMQTT
import Logging
import MetricsExposition
import Synchronization

/// `--metrics`: a command's series in a registry, served by a `MetricsResponder` for as
/// long as the command runs (docs/operations.md, "Metrics"). Every command's registry has
/// `beaconctl_build_info` and `beaconctl_start_time_seconds`; each command adds its own
/// series, read from counters it keeps anyway at each scrape.
struct MetricsServing: Sendable {
    let registry: MetricsRegistry
    let responder: MetricsResponder

    /// Serves the registry on `options`' address; `nil` without `--metrics`. A port in use
    /// is exit status 3 (a restart may find it free); an address this host cannot serve is 2.
    static func start(_ options: MetricsOptions, command: String, logger: Logger) throws -> MetricsServing? {
        guard let address = try options.address() else { return nil }
        let registry = MetricsRegistry()
        let started = WallClock.unixTime()
        registry.register("beaconctl_build_info", help: "Always 1; the labels say which beaconctl runs which command.", type: .gauge) {
            [MetricSample(1, labels: [MetricLabel("version", BeaconCtlVersion.current), MetricLabel("command", command)])]
        }
        registry.register("beaconctl_start_time_seconds", help: "When the command started, in seconds since the Unix epoch.", type: .gauge) {
            started
        }
        let responder: MetricsResponder
        do {
            responder = try MetricsResponder(address) { registry.exposition() }
        } catch {
            throw CommandFailure(error.isAddressInUse ? .controller : .usageOrInput, "--metrics \(error)")
        }
        logger.notice("metrics: serving \(responder.address.url)")
        return MetricsServing(registry: registry, responder: responder)
    }

    func stop() {
        responder.stop()
    }

    /// `scan --metrics`: sightings read and (a live scan: `loss`) lost, and the broker clients.
    func registerScan(sightings: @escaping @Sendable () -> Int, loss: ScanLoss?, broker: [MQTTClient], publisher: MQTTClient?) {
        registry.register("beaconctl_scan_sightings_total", help: "iBeacon sightings the scan read.", type: .counter) {
            Double(sightings())
        }
        if let loss {
            registry.register(
                "beaconctl_scan_sightings_lost_total",
                help: "Sightings lost between the controller and the output: the scan's queues or the run's were full (this host could not keep up).",
                type: .counter
            ) {
                Double(loss.count)
            }
        }
        registerBrokerClients(input: broker, publish: publisher)
    }

    /// `beaconctl_mqtt_messages_queued` and `…_dropped_total` for the command's broker
    /// clients, by what each does (`input`: the sightings read; `publish`: what is published).
    func registerBrokerClients(input: [MQTTClient], publish: MQTTClient?) {
        let clients = input.map { (role: "input", client: $0) } + (publish.map { [(role: "publish", client: $0)] } ?? [])
        guard !clients.isEmpty else { return }
        registry.register(
            "beaconctl_mqtt_messages_queued", help: "Messages waiting for the broker to acknowledge them, by client.", type: .gauge
        ) {
            clients.map { MetricSample($0.client.pendingMessages, labels: [MetricLabel("client", $0.role)]) }
        }
        registry.register(
            "beaconctl_mqtt_messages_dropped_total",
            help: "Messages dropped because too many were already waiting for the broker, by client.", type: .counter
        ) {
            clients.map { MetricSample($0.client.droppedMessages, labels: [MetricLabel("client", $0.role)]) }
        }
    }

    /// `beaconctl_input_messages_skipped_total{reason}`: a broker's messages that carried no
    /// sighting to judge.
    func registerSkippedMessages(_ feed: BrokerSightingFeed) {
        registry.register(
            "beaconctl_input_messages_skipped_total",
            help: "Broker messages read and skipped, by why: malformed (unreadable on a sightings topic), without-identity (a beacon report with no major/minor).",
            type: .counter
        ) {
            let skipped = feed.skippedMessages
            return [
                MetricSample(skipped.malformed, labels: [MetricLabel("reason", "malformed")]),
                MetricSample(skipped.withoutIdentity, labels: [MetricLabel("reason", "without-identity")]),
            ]
        }
        registry.register(
            "beaconctl_input_lines_skipped_total",
            help: "Unreadable lines skipped in broker messages whose other lines were read (a corrupt sighting in a batch).",
            type: .counter
        ) {
            [MetricSample(feed.skippedMessages.unreadableLines)]
        }
    }

    /// The watch's series (`verify --watch`) of a plan of `beacons`, read from the readings it
    /// returns, which the watch keeps current (`AuditWatch.readings`).
    func registerWatch(beacons: Int) -> AuditWatchReadings {
        let readings = AuditWatchReadings(beacons: beacons)
        registry.register("beaconctl_watch_sightings_total", help: "Sightings the watch read.", type: .counter) {
            Double(readings.snapshot.statistics.sightings)
        }
        registry.register(
            "beaconctl_watch_sightings_lost_total",
            help: "Sightings lost before the audit saw them (queues full: the host or the broker could not keep up).", type: .counter
        ) {
            Double(readings.snapshot.lostSightings)
        }
        registry.register(
            "beaconctl_watch_sightings_ignored_total",
            help: "Sightings read and not judged, by why: outside the fleet (another UUID, or a beacon outside the audit), "
                + "an unexpected identity beyond those tracked, a receiver beyond those tracked.",
            type: .counter
        ) {
            let statistics = readings.snapshot.statistics
            return [
                MetricSample(statistics.ignoredSightings, labels: [MetricLabel("reason", "outside-fleet")]),
                MetricSample(statistics.untrackedUnexpectedSightings, labels: [MetricLabel("reason", "untracked-identity")]),
                MetricSample(statistics.untrackedReceiverSightings, labels: [MetricLabel("reason", "untracked-receiver")]),
            ]
        }
        registry.register(
            "beaconctl_watch_beacons",
            help: "Manifest beacons by state (unknown: not yet judged); unexpected and gone count identities the manifest does not list.",
            type: .gauge
        ) {
            Self.beaconSamples(readings.snapshot.statistics)
        }
        registry.register(
            "beaconctl_watch_broker_messages_lost_total",
            help: "Messages of sightings a beaconctl publisher numbered and sent that never arrived through the broker.", type: .counter
        ) {
            Double(readings.snapshot.lostMessages)
        }
        registry.register(
            "beaconctl_watch_receivers", help: "Receivers the watch follows, by status (a broker's input: its boxes).", type: .gauge
        ) {
            let statistics = readings.snapshot.statistics
            return [
                MetricSample(statistics.receiversOnline, labels: [MetricLabel("state", "online")]),
                MetricSample(statistics.receiversOffline, labels: [MetricLabel("state", "offline")]),
            ]
        }
        registry.register("beaconctl_input_up", help: "1 while the input delivers sightings (a broker: connected), else 0.", type: .gauge) {
            readings.snapshot.inputDelivering ? 1 : 0
        }
        registry.register("beaconctl_input_losses_total", help: "Times the input stopped delivering (input-lost events).", type: .counter) {
            Double(readings.snapshot.inputLosses)
        }
        registry.register(
            "beaconctl_watch_receiver_clock_events_total",
            help: "Receivers' clocks found off the watch's by more than the silence, or back in agreement (receiver-clock events).",
            type: .counter
        ) {
            Double(readings.snapshot.statistics.receiverClockEvents)
        }
        registry.register(
            "beaconctl_beacon_battery_volts",
            help: "Each beacon's battery voltage as the watch judges it (the median of its latest telemetry readings).",
            type: .gauge
        ) {
            readings.snapshot.batteries.compactMap { battery in
                guard case .millivolts(let millivolts) = battery.level else { return nil }
                return MetricSample(
                    Double(millivolts) / 1000, labels: [MetricLabel("beacon", battery.beaconID), MetricLabel("venue", battery.venueID)])
            }
        }
        registry.register(
            "beaconctl_beacon_battery_percent",
            help: "Each beacon's battery level in percent, for beacons whose telemetry gives percent rather than volts.",
            type: .gauge
        ) {
            readings.snapshot.batteries.compactMap { battery in
                guard case .percent(let percent) = battery.level else { return nil }
                return MetricSample(
                    Int(percent), labels: [MetricLabel("beacon", battery.beaconID), MetricLabel("venue", battery.venueID)])
            }
        }
        registry.register(
            "beaconctl_beacons_battery_low", help: "Beacons whose battery is below the manifest's battery_low, by venue.", type: .gauge
        ) {
            var byVenue: [String: Int] = [:]
            for battery in readings.snapshot.batteries { byVenue[battery.venueID, default: 0] += battery.isLow ? 1 : 0 }
            return byVenue.sorted { $0.key < $1.key }.map { MetricSample($0.value, labels: [MetricLabel("venue", $0.key)]) }
        }
        registry.register(
            "beaconctl_telemetry_readings_total",
            help: "Telemetry readings the watch took, by whether a beacon of the manifest was paired with them.", type: .counter
        ) {
            let telemetry = readings.snapshot.telemetry
            return [
                MetricSample(telemetry.received - telemetry.unpaired, labels: [MetricLabel("paired", "true")]),
                MetricSample(telemetry.unpaired, labels: [MetricLabel("paired", "false")]),
            ]
        }
        registry.register(
            "beaconctl_watch_stalls_total", help: "Times the watch itself did not run for a while (watch-stalled events).", type: .counter
        ) {
            Double(readings.snapshot.statistics.stalls)
        }
        return readings
    }

    /// One series per state, 0 included, so that an alert on a state finds it at 0.
    static func beaconSamples(_ statistics: AuditStatistics) -> [MetricSample] {
        var samples = AuditState.allCases.map { state in
            let count: Int
            switch state {
            case .unexpected: count = statistics.unexpectedNow
            case .gone: count = statistics.unexpectedGone
            default: count = statistics.beaconStates[state] ?? 0
            }
            return MetricSample(count, labels: [MetricLabel("state", state.rawValue)])
        }
        samples.append(MetricSample(statistics.unknownBeacons, labels: [MetricLabel("state", "unknown")]))
        return samples
    }
}

extension BrokerInput {
    /// The clients reading the input, for their queue metrics.
    var metricsClients: [MQTTClient] { feed.subscriptions.map(\.client) }
}

/// `monitor --metrics`: region events by kind, and the regions by state, as the events
/// left them (events are few: a lock each is nothing).
final class MonitorMetricsSink: MonitorReportSink {
    private struct Counts {
        var events: [RegionEvent.Kind: Int] = [:]
        var states: [String: RegionState] = [:]
    }

    private let counts = Mutex(Counts())

    init(_ serving: MetricsServing, regions: [MonitoredRegion]) {
        counts.withLock { counts in
            for monitored in regions { counts.states[monitored.region.identifier] = .unknown }
        }
        serving.registry.register("beaconctl_monitor_region_events_total", help: "Region events reported, by kind.", type: .counter) { [self] in
            let events = counts.withLock { $0.events }
            return [RegionEvent.Kind.enter, .exit, .state].map { MetricSample(events[$0] ?? 0, labels: [MetricLabel("kind", $0.rawValue)]) }
        }
        serving.registry.register("beaconctl_monitor_regions", help: "Monitored regions by state (unknown: not yet decided).", type: .gauge) { [self] in
            let states = counts.withLock { $0.states }
            return [RegionState.inside, .outside, .unknown].map { state in
                MetricSample(states.values.count { $0 == state }, labels: [MetricLabel("state", state.rawValue)])
            }
        }
    }

    func report(_ events: [RegionEvent]) {
        counts.withLock { counts in
            for event in events {
                counts.events[event.kind, default: 0] += 1
                counts.states[event.regionIdentifier] = event.state
            }
        }
    }

    func report(_ rangings: [RegionRanging]) {}
}

/// `advertise --metrics`: what is on the air, and the faults and restarts of the watchdog,
/// from the advertiser's events.
final class AdvertiseMetrics: Sendable {
    private struct Counts {
        var beaconsOnAir = 0
        var up = false
        var interruptions = 0
        var restarts = 0
        var restartFailures = 0
    }

    private let counts = Mutex(Counts())

    init(_ serving: MetricsServing) {
        serving.registry.register("beaconctl_advertising_up", help: "1 while the beacons are on the air, else 0.", type: .gauge) { [self] in
            counts.withLock { $0.up } ? 1 : 0
        }
        serving.registry.register(
            "beaconctl_advertising_beacons", help: "Beacons on the air, as the controller accepted them (0 while off the air).", type: .gauge
        ) { [self] in
            Double(counts.withLock { $0.beaconsOnAir })
        }
        serving.registry.register(
            "beaconctl_advertising_interruptions_total", help: "Times the beacons went off the air through a fault.", type: .counter
        ) { [self] in
            Double(counts.withLock { $0.interruptions })
        }
        serving.registry.register(
            "beaconctl_advertising_restarts_total", help: "Times the beacons were brought back on the air after a fault.", type: .counter
        ) { [self] in
            Double(counts.withLock { $0.restarts })
        }
        serving.registry.register(
            "beaconctl_advertising_restart_failures_total", help: "Restart attempts that failed (another follows).", type: .counter
        ) { [self] in
            Double(counts.withLock { $0.restartFailures })
        }
    }

    func note(_ event: AdvertiserEvent) {
        counts.withLock { counts in
            switch event {
            case .started(let session):
                counts.up = true
                counts.beaconsOnAir = session.beacons.count
                if session.restartCount > 0 { counts.restarts += 1 }
            case .interrupted:
                counts.up = false
                counts.beaconsOnAir = 0
                counts.interruptions += 1
            case .restartFailed:
                counts.restartFailures += 1
            case .stopped:
                counts.up = false
                counts.beaconsOnAir = 0
            case .warning:
                break
            }
        }
    }
}
