#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BeaconCore
import BeaconFleet
import Logging

/// `monitor`'s front end (`RegionMonitoring.reporting`): every report to the local output
/// (JSON lines or the log, and --exec's program) and to --metrics' counts; the broker's
/// client counted once publishing starts; --exec's runs waited for at the end.
struct MonitorReporting: MonitorFrontEnd {
    let sinks: MonitorReportSinks
    let hook: MonitorEventHook?
    let serving: MetricsServing?

    /// The metrics sink registers monitor's series now, before the broker clients' (as
    /// `publishingStarted` does those).
    init(local: MonitorOutput, hook: MonitorEventHook?, serving: MetricsServing?, regions: [MonitoredRegion]) {
        let metrics = serving.map { MonitorMetricsSink($0, regions: regions) }
        self.sinks = MonitorReportSinks([local] + (metrics.map { [$0] } ?? []))
        self.hook = hook
        self.serving = serving
    }

    func report(_ events: [RegionEvent]) { sinks.report(events) }
    func report(_ rangings: [RegionRanging]) { sinks.report(rangings) }

    func publishingStarted(_ publishing: ReportPublishing) {
        serving?.registerBrokerClients(input: [], publish: publishing.client)
    }

    func finish(stopping: Bool) async {
        await hook?.finish(stopping: stopping)
    }
}

/// `monitor`'s state requests: SIGUSR1, through the process's one signal watcher (a source of
/// its own, cancelled at the end, would leave SIGUSR1 unhandled for a later monitor run in
/// the same process).
struct SignalStateRequests: MonitorStateRequests {
    let logger: Logger

    func listen(_ report: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let scope = SignalWatcher.shared.open(for: [SIGUSR1]) { _ in report() }
        logger.info("kill -USR1 \(getpid()) reports every region's state")
        return { SignalWatcher.shared.close(scope) }
    }
}
