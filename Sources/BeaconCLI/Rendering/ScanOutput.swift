import BeaconCore
import BeaconFleet
import Logging
import Synchronization

/// What `scan` shows while its use case runs (`ScanRun.range`): the metrics registered at the
/// start, the live table redrawn on a terminal, and at the end the closing log lines and the
/// last table (text output), or nothing more (JSON lines, written as the run takes them).
final class ScanOutput: ScanObserver {
    /// How often the live table is redrawn, in seconds.
    static let redrawInterval = 0.5

    private let run: ScanRun
    private let table: ScanTable
    /// What a recording is called in the last table's header (`-`: standard input).
    private let path: String
    /// The table redrawn in place (text on a terminal), or drawn once at the end (text).
    private let drawsLive: Bool
    private let drawsAtEnd: Bool
    private let serving: MetricsServing?
    private let broker: BrokerInput?
    private let logger: Logger
    private let display = ScanLiveDisplayBox()
    private let state = Mutex<(header: String, controller: String, lastFrame: PassTime?)>(("", "", nil))

    init(
        run: ScanRun, table: ScanTable, path: String, drawsLive: Bool, drawsAtEnd: Bool, serving: MetricsServing?,
        broker: BrokerInput?, logger: Logger
    ) {
        self.run = run
        self.table = table
        self.path = path
        self.drawsLive = drawsLive
        self.drawsAtEnd = drawsAtEnd
        self.serving = serving
        self.broker = broker
        self.logger = logger
    }

    func started(_ start: ScanStart) {
        if let serving {
            serving.registerScan(
                sightings: { [run] in run.sightingCount }, loss: start.loss, broker: broker?.metricsClients ?? [],
                publisher: start.publisher?.client)
        }
        if let scan = start.live {
            state.withLock { $0 = ("Scanning \(scan.controller) (\(scan.family) scanning)", scan.controller, nil) }
        }
    }

    func tick(_ now: PassTime) {
        guard drawsLive else { return }
        let header: String? = state.withLock { state in
            guard state.lastFrame.map({ (now - $0).instantSeconds >= Self.redrawInterval }) ?? true else { return nil }
            state.lastFrame = now
            return state.header
        }
        guard let header else { return }
        Console.current.write(display.frame(frameLines(at: now, header: header)))
    }

    func ended(_ end: ScanEnd) {
        switch end {
        case .recording(let latestTime):
            guard drawsAtEnd else { return }
            let header = "\(path == "-" ? "<stdin>" : path): \(NumberText.count(run.sightingCount, "sighting")) of "
            printFinalTable(at: latestTime ?? .origin, header: header)
        case .live(let end):
            let (header, controller) = state.withLock { ($0.header, $0.controller) }
            let elapsed = end.elapsed
            let seconds = ScanTable.decimal(elapsed.seconds, places: 1)
            logger.info("scan ended", metadata: ["hci": "\(controller)", "seconds": "\(seconds)", "counts": "\(end.counts)"])
            // Lost before the run (the scan's queue) and in it: one count, as the metric's.
            if end.lostCount > 0 {
                logger.warning("\(LossWording.reports(end.lostCount)) lost between the controller and the output (this host could not keep up): beacons may be missing from what was shown")
            }
            if drawsLive {
                Console.current.write(display.frame(frameLines(at: elapsed, header: header)) + display.finish())
            } else if drawsAtEnd {
                printFinalTable(at: elapsed, header: header + ", \(seconds) s: \(NumberText.count(run.sightingCount, "sighting")) of ")
            }
        }
    }

    private func frameLines(at time: PassTime, header: String) -> [String] {
        let beacons = run.snapshot(at: time)
        let title = header + ", \(ScanTable.decimal(time.seconds, places: 1)) s: \(NumberText.count(beacons.count, "beacon"))"
        return [title, ""] + table.lines(beacons, at: time.seconds) + TelemetryText.lines(run.latestTelemetry(), style: table.style)
    }

    private func printFinalTable(at time: PassTime, header: String) {
        let beacons = run.snapshot(at: time)
        let console = Console.current
        console.line(header + NumberText.count(beacons.count, "beacon"))
        console.line()
        for line in table.lines(beacons, at: time.seconds) + TelemetryText.lines(run.latestTelemetry(), style: table.style) {
            console.line(line)
        }
    }

    /// One sighting to standard output, as `--format jsonl` writes it.
    @Sendable static func writeJSONLine(_ sighting: Sighting) {
        Console.current.line(SightingJSONLines.encode(sighting))
    }

    /// One telemetry reading to standard output, as `--format jsonl --telemetry` writes it.
    @Sendable static func writeTelemetryLine(_ reading: TelemetryReading) {
        Console.current.line(TelemetryJSONLines.encode(reading))
    }
}
