import BenchmarkSupport
import BeaconCore
import BeaconFleet
import BeaconMQTT

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `--broker-flood`: the watch under a chain's live load through a real broker.
///
///     swift run -c release ingest-benchmark --broker-flood [--beacons 20000] [--rate 1[,2,4…]] [--seconds 30]
///         [--pause-watch AT,SECONDS] [--expect-lossless | --expect-loss-reported]
///
/// Each run starts its own Mosquitto on a free loopback port, writes the manifest of the
/// chain (WatchScenario's: 20 beacons and one receiver a store), starts the release-built
/// `beaconctl verify MANIFEST --watch --input mqtt://127.0.0.1:PORT/fleet --silence 10
/// --format jsonl` as a child process, and once the broker has its subscription publishes
/// `--beacons` beacons each heard `--rate` times a second for `--seconds` seconds, as the
/// stores' boxes publish them (`MQTTSightingPublisher`, `--publishers` clients). Then SIGTERM,
/// and the watch's output is compared with what was published. Beside the watch, in the
/// same run, a bare subscriber counts what the broker delivers (the baseline).
///
/// `--pause-watch` makes a burst larger than the watch can take on any machine: the watch
/// is stopped (SIGSTOP) `AT` seconds into publishing and continued `SECONDS` later, as a
/// watch whose machine stalled would be, while the boxes go on publishing. What a rate alone
/// exceeds depends on the machine (a faster one takes 16 Hz whole); a stalled reader does not.
struct FloodOptions {
    var beacons = 20_000
    var rates: [Double] = [1]
    var seconds = 30.0
    var silence = 10.0
    var publishers = 4
    var perMessage = 50
    var maximumQueued: Int?
    var settle = 2.0
    var beaconctl: String?
    var keep: String?
    var baseline = true
    var expectLossless = false
    var expectLossReported = false
    /// When (seconds into publishing) the watch is stopped, and for how long.
    var pause: (at: Double, seconds: Double)?

    /// SIGTERM must end the watch, summary written, within this whatever its backlog.
    static let sigtermLimit = 2.0

    static let usage = """
        usage: ingest-benchmark --broker-flood [--beacons N] [--rate HZ[,HZ…]] [--seconds S] [--silence S]
                 [--publishers N] [--per-message N] [--max-queued N] [--settle S] [--beaconctl PATH]
                 [--keep DIR] [--no-baseline] [--pause-watch AT,SECONDS] [--expect-lossless | --expect-loss-reported]
          --beacons      beacons on the air, 20 a store (default 20000: 1,000 stores)
          --rate         receptions of each beacon a second; a list runs once per rate (default 1)
          --seconds      seconds of load (default 30)
          --silence      the watch's --silence (default 10)
          --publishers   MQTT clients publishing the stores' sightings, stores dealt round-robin (default 4)
          --per-message  sightings a message aims at: each box's batch is flushed every N/(20 x rate) s,
                         at least every 0.1 s as scan --mqtt does; a batch of 64 goes at once (default 50)
          --max-queued   the broker's max_queued_messages (default: Mosquitto's own, 1000)
          --settle       seconds between the last acknowledgement and SIGTERM (default 2)
          --beaconctl    the watch's executable (default: beaconctl beside this benchmark)
          --keep DIR     leave each run's broker log, manifest and the watch's output in DIR/run-N
          --no-baseline  no counting subscriber beside the watch
          --pause-watch AT,SECONDS
                         stop the watch (SIGSTOP) AT seconds into publishing and continue it
                         SECONDS later while publishing goes on: a burst beyond what it can take
                         on any machine (SECONDS below --silence: a stalled watch is not judged)
          --expect-lossless       exit 1 if a run loses a sighting or reports a beacon missing (or
                                  unmonitored, or a box offline)
          --expect-loss-reported  exit 1 unless a run loses sightings, says so while publishing
                                  (a sightings-lost event or a stats line with lost_sightings > 0)
                                  and reports no beacon missing (nor unmonitored, nor a box offline)
        every run exits 1 when SIGTERM takes the watch over 2 s to end or it writes no summary
        """

    static func parse(_ arguments: ArraySlice<String>) -> FloodOptions? {
        var options = FloodOptions()
        var rest = arguments
        func number(_ range: ClosedRange<Double>) -> Double? {
            guard let text = rest.popFirst(), let value = Double(text), value.isFinite, range.contains(value) else { return nil }
            return value
        }
        func integer(_ range: ClosedRange<Int>) -> Int? {
            guard let text = rest.popFirst(), let value = Int(text), range.contains(value) else { return nil }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--beacons":
                // Whole stores of 20; majors number the stores (at most 65,535).
                guard let beacons = integer(20...1_000_000), beacons % WatchScenario.beaconsPerStore == 0 else { return nil }
                options.beacons = beacons
            case "--rate":
                guard let list = rest.popFirst() else { return nil }
                let rates = list.split(separator: ",").compactMap { Double($0) }
                guard !rates.isEmpty, rates.count == list.split(separator: ",").count,
                      rates.allSatisfy({ $0.isFinite && $0 > 0 && $0 <= 1000 })
                else { return nil }
                options.rates = rates
            case "--seconds":
                guard let seconds = number(1...3600) else { return nil }
                options.seconds = seconds
            case "--silence":
                guard let silence = number(1...3600) else { return nil }
                options.silence = silence
            case "--publishers":
                guard let publishers = integer(1...64) else { return nil }
                options.publishers = publishers
            case "--per-message":
                guard let perMessage = integer(1...64) else { return nil }
                options.perMessage = perMessage
            case "--max-queued":
                guard let queued = integer(0...10_000_000) else { return nil }
                options.maximumQueued = queued
            case "--settle":
                guard let settle = number(0...600) else { return nil }
                options.settle = settle
            case "--beaconctl":
                guard let path = rest.popFirst() else { return nil }
                options.beaconctl = path
            case "--keep":
                guard let folder = rest.popFirst() else { return nil }
                options.keep = folder
            case "--no-baseline":
                options.baseline = false
            case "--pause-watch":
                guard let pair = rest.popFirst() else { return nil }
                let parts = pair.split(separator: ",").map { Double($0) }
                guard parts.count == 2, let at = parts[0], let seconds = parts[1],
                      at.isFinite, seconds.isFinite, at >= 0, seconds > 0, seconds <= 600
                else { return nil }
                options.pause = (at, seconds)
            case "--expect-lossless":
                options.expectLossless = true
            case "--expect-loss-reported":
                options.expectLossReported = true
            default:
                return nil
            }
        }
        guard Double(options.beacons) * (options.rates.max() ?? 1) * options.seconds <= 1e9,
              !(options.expectLossless && options.expectLossReported),
              // The pause ends while the boxes still publish, and a stopped watch is not
              // silent for --silence: it is a burst to read, not a stall to judge.
              options.pause.map({ $0.at + $0.seconds < options.seconds && $0.seconds < options.silence }) ?? true
        else { return nil }
        return options
    }

    /// The load's flush interval at `rate`: a store's 20 beacons fill `perMessage` lines in
    /// it, and never less than the 0.1 s a box waits at most.
    func flushInterval(rate: Double) -> Double {
        max(MQTTSightingPublisher.flushInterval, Double(perMessage) / (Double(WatchScenario.beaconsPerStore) * rate))
    }
}

/// The figures of one run.
struct FloodRun {
    var beacons: Int
    var rate: Double
    var seconds: Double
    var planned: Int
    var published: Int
    var publisherDropped: Int
    var unacknowledged: Bool
    var publishingSeconds: Double
    var largestLag: Double
    var baseline: (sightings: Int, messages: Int)?
    var brokerDroppedMessages: Int?
    var watch: FloodWatchOutput
    var watchExitStatus: Int32?
    var sigtermSeconds: Double?
    var peakBytes: Int
    /// When publishing ended, on the watch's clock (seconds since it was started).
    var publishingEndedAt: Double
    /// When the watch was stopped and continued (`--pause-watch`), on the same clock.
    var paused: (from: Double, to: Double)?

    var read: Int { watch.summary?.sightings ?? 0 }
    var lost: Int { max(0, published - read) }
    var lossPercent: Double { published == 0 ? 0 : Double(lost) / Double(published) * 100 }
    var lossSaid: Bool { watch.sightingsLostEvents > 0 || (watch.summary?.lostSightings ?? 0) > 0 || (watch.summary?.lostMessages ?? 0) > 0 }
    var lossSaidWhilePublishing: Bool { watch.firstLossSaidAt.map { $0 <= publishingEndedAt } ?? false }

    var line: String {
        func number(_ value: Double) -> String { formatted(value, decimals: value == value.rounded() ? 0 : 1) }
        var text = "flood \(beacons) beacons x \(number(rate)) Hz x \(number(seconds)) s: published \(published)"
        if published != planned { text += " of \(planned)" }
        text += ", read \(read), lost \(lost) (\(formatted(lossPercent, decimals: 1)) %)"
        text += ", missing \(watch.missing), ok \(watch.ok)"
        if watch.okAgain > 0 { text += " (\(watch.okAgain) back from another state)" }
        if watch.unmonitored > 0 { text += ", unmonitored \(watch.unmonitored)" }
        if watch.receiverOffline > 0 { text += ", receiver-offline \(watch.receiverOffline)" }
        text += ", sightings-lost \(watch.sightingsLostEvents), lost_sightings \(watch.summary.map { String($0.lostSightings) } ?? "-")"
        if let lostMessages = watch.summary?.lostMessages, lostMessages >= 0 { text += ", lost_messages \(lostMessages)" }
        if watch.inputLostEvents > 0 { text += ", input-lost \(watch.inputLostEvents)" }
        if let paused {
            text += ", watch stopped from \(formatted(paused.from, decimals: 1)) s to \(formatted(paused.to, decimals: 1)) s"
        }
        if let said = watch.firstLossSaidAt {
            text += ", loss first said at \(formatted(said, decimals: 1)) s (publishing ended at \(formatted(publishingEndedAt, decimals: 1)) s)"
            if let paused, said < paused.from { text += " (before the stop: the rate alone was beyond the watch)" }
        } else if paused != nil, lost == 0 {
            text += " (the rate and the stop within what the watch takes)"
        }
        text += ", sigterm-exit " + (sigtermSeconds.map { formatted($0, decimals: 2) + " s" } ?? "over 30 s (killed)")
        text += ", peak \(megabytes(peakBytes)) MB"
        if let baseline {
            let perMessage = baseline.messages == 0 ? 0 : Double(baseline.sightings) / Double(baseline.messages)
            text += "; baseline subscriber \(baseline.sightings) (\(max(0, published - baseline.sightings)) lost, \(formatted(perMessage, decimals: 1)) a message)"
        }
        text += "; broker dropped " + (brokerDroppedMessages.map { "\($0) messages" } ?? "(not said)")
        if publisherDropped > 0 || unacknowledged { text += "; publishers dropped \(publisherDropped)\(unacknowledged ? ", some unacknowledged" : "")" }
        text += "; publishing took \(formatted(publishingSeconds, decimals: 2)) s, at most \(formatted(largestLag, decimals: 2)) s behind"
        return text
    }
}

func runBrokerFlood(_ options: FloodOptions) async -> Int32 {
    let beaconctl = options.beaconctl ?? siblingExecutable("beaconctl")
    guard access(beaconctl, X_OK) == 0 else {
        print("ingest-benchmark: no beaconctl at \(beaconctl): swift build -c release --product beaconctl, or --beaconctl PATH")
        return 2
    }
    print("ingest-benchmark --broker-flood: stores' boxes (20 beacons each, QoS 1, \(options.publishers) publishing clients) through Mosquitto")
    print("on loopback into \(beaconctl) verify --watch --input mqtt://… --silence \(formatted(options.silence)) --format jsonl;")
    print("read: the watch's summary; lost: published minus read; baseline: a bare subscriber beside it in the same run\n")
    var failures: [String] = []
    for (index, rate) in options.rates.enumerated() {
        guard let folder = runFolder(options, index: index) else { return 2 }
        let result = await floodRun(options, rate: rate, beaconctl: beaconctl, folder: folder)
        if options.keep == nil { removeFolder(folder) }
        switch result {
        case .failure(let failure):
            print("ingest-benchmark: flood at \(formatted(rate, decimals: 1)) Hz: \(failure)")
            return 2
        case .success(let run):
            print(run.line)
            failures += check(run, options)
        }
    }
    for failure in failures { print("FAILED: \(failure)") }
    return failures.isEmpty ? 0 : 1
}

/// What the run's own claims say: always a summary and SIGTERM within the limit; with
/// `--expect-lossless` nothing lost and nothing missing; with `--expect-loss-reported`
/// losses, said while they happened, and nothing missing for them.
func check(_ run: FloodRun, _ options: FloodOptions) -> [String] {
    let name = "\(run.beacons) beacons x \(formatted(run.rate, decimals: 1)) Hz"
    var failures: [String] = []
    if run.watch.summary == nil { failures.append("\(name): the watch wrote no summary") }
    if let seconds = run.sigtermSeconds {
        if seconds > FloodOptions.sigtermLimit {
            failures.append("\(name): SIGTERM took \(formatted(seconds, decimals: 2)) s to end the watch (at most \(formatted(FloodOptions.sigtermLimit, decimals: 0)) s)")
        }
    } else {
        failures.append("\(name): the watch had not ended 30 s after SIGTERM (killed)")
    }
    if run.sigtermSeconds != nil, run.watchExitStatus != 0 {
        failures.append("\(name): the watch exited with status \(run.watchExitStatus ?? -1) after SIGTERM (0 expected)")
    }
    // Every beacon and every box is on the air throughout: any of these is a false verdict.
    let falseVerdicts = run.watch.missing + run.watch.unmonitored + run.watch.receiverOffline
    if run.published < run.planned {
        failures.append("\(name): only \(run.published) of \(run.planned) sightings were handed to the broker (the load itself fell short)")
    }
    if options.expectLossless {
        if run.lost > 0 { failures.append("\(name): \(run.lost) sightings lost (of \(run.published))") }
        if falseVerdicts > 0 {
            failures.append("\(name): \(run.watch.missing) missing, \(run.watch.unmonitored) unmonitored and \(run.watch.receiverOffline) receiver-offline reported while every beacon and box was on the air")
        }
    }
    if options.expectLossReported {
        if run.lost == 0 {
            failures.append(options.pause == nil
                ? "\(name): nothing was lost: this rate is within what the watch takes, raise it (or stop the watch a while: --pause-watch)"
                : "\(name): nothing was lost, even with the watch stopped a while: raise the rate or make the stop longer")
        } else if !run.lossSaid {
            failures.append("\(name): \(run.lost) sightings lost and the watch said nothing of it (no sightings-lost event, lost_sightings and lost_messages 0)")
        } else if !run.lossSaidWhilePublishing {
            failures.append("\(name): the loss was said only at the end, not while publishing")
        }
        if falseVerdicts > 0 {
            failures.append("\(name): \(run.watch.missing) missing, \(run.watch.unmonitored) unmonitored and \(run.watch.receiverOffline) receiver-offline reported while every beacon and box was on the air")
        }
    }
    return failures
}

func floodRun(_ options: FloodOptions, rate: Double, beaconctl: String, folder: String) async -> Result<FloodRun, FloodFailure> {
    let stores = options.beacons / WatchScenario.beaconsPerStore
    let manifestPath = "\(folder)/chain.yaml"
    guard writeText(FloodFleet.manifest(stores: stores), to: manifestPath) else { return .failure(FloodFailure("cannot write \(manifestPath)")) }
    let broker: FloodBroker
    switch await FloodBroker.start(folder: folder, maximumQueued: options.maximumQueued) {
    case .failure(let failure): return .failure(failure)
    case .success(let started): broker = started
    }
    let url = "mqtt://127.0.0.1:\(broker.port)/fleet"
    let outputPath = "\(folder)/watch.jsonl"
    let errorsPath = "\(folder)/watch.stderr"
    let watchStart = ContinuousClock.now
    guard let watch = BenchmarkChild(
        beaconctl, ["verify", manifestPath, "--watch", "--input", url, "--silence", formatted(options.silence, decimals: 1), "--format", "jsonl"],
        output: outputPath, errors: errorsPath, environment: ["BEACONCTL_MQTT_CLIENT_ID_PREFIX": "flood-watch"])
    else {
        await broker.stop()
        return .failure(FloodFailure("cannot start \(beaconctl)"))
    }
    func fail(_ text: String) async -> Result<FloodRun, FloodFailure> {
        await watch.stop()
        await broker.stop()
        return .failure(FloodFailure(text + "; the watch's standard error: " + String(readText(errorsPath).suffix(2000))))
    }
    // The watch reads from the moment the broker has its subscription (it loads the
    // manifest first).
    guard await waitUntil(.seconds(120), { broker.hasSubscription(clientIDPrefix: "flood-watch", topic: "/sightings/") || watch.hasExited }),
          !watch.hasExited
    else { return await fail("the watch did not subscribe within 120 s") }

    let brokerURL: MQTTBrokerURL
    let boxes: FloodBoxes
    var counter: FloodCountingSubscriber?
    do {
        brokerURL = try MQTTBrokerURL(parsing: url)
        if options.baseline {
            let subscriber = try FloodCountingSubscriber(broker: brokerURL)
            try subscriber.start()
            counter = subscriber
        }
        boxes = try FloodBoxes(broker: brokerURL, count: options.publishers, wallClockOffset: WallClock.unixOffset(elapsed: 0))
        try boxes.start()
    } catch {
        return await fail("an MQTT client of the benchmark failed: \(error)")
    }
    guard await waitUntil(.seconds(20), { boxes.allConnected && (counter == nil || broker.hasSubscription(clientIDPrefix: "flood-baseline", topic: "/sightings/")) })
    else {
        await boxes.stop()
        await counter?.stop()
        return await fail("the benchmark's clients did not connect within 20 s")
    }

    let load = FloodLoad(beacons: options.beacons, rate: rate, seconds: options.seconds, flushInterval: options.flushInterval(rate: rate))
    // The stop runs beside the publishing on the wall clock: the watch is a real process.
    // Only the pid crosses into the task; nothing reaps the watch while publishing goes on,
    // so the pid still names it (an exited watch stays a zombie until reaped).
    let pauseTask: Task<(from: Double, to: Double), Never>? = options.pause.map { pause in
        let pid = watch.pid
        return Task {
            try? await Task.sleep(for: .seconds(pause.at))
            kill(pid, SIGSTOP)
            let from = FloodTime.seconds(ContinuousClock.now - watchStart)
            try? await Task.sleep(for: .seconds(pause.seconds))
            kill(pid, SIGCONT)
            return (from, FloodTime.seconds(ContinuousClock.now - watchStart))
        }
    }
    let outcome = await load.publish(through: boxes)
    let paused = await pauseTask?.value
    // On the watch's clock, which starts as the watch does (a little after it was spawned,
    // once its manifest is loaded): a loss said by then was said while publishing went on,
    // give or take the watch's start-up.
    let publishingEndedAt = FloodTime.seconds(ContinuousClock.now - watchStart)
    let acknowledged = await boxes.drain(within: .seconds(30))
    let counts = boxes.counts
    // The bare subscriber has everything a little after the last acknowledgement (bounded).
    if let counter { _ = await waitUntil(.seconds(5)) { counter.counted.sightings >= counts.published } }
    try? await Task.sleep(for: .seconds(options.settle))
    let baseline = counter?.counted
    // The broker says every second what it dropped.
    try? await Task.sleep(for: .milliseconds(1100))
    let brokerDropped = counter?.droppedByBroker

    watch.signal(SIGTERM)
    let sigtermSeconds = await watch.waitForExit(within: .seconds(30))
    if sigtermSeconds == nil { await watch.stop(grace: .zero) }
    await boxes.stop()
    await counter?.stop()
    await broker.stop()
    return .success(FloodRun(
        beacons: options.beacons, rate: rate, seconds: options.seconds, planned: load.total, published: counts.published,
        publisherDropped: counts.dropped, unacknowledged: !acknowledged, publishingSeconds: outcome.elapsed, largestLag: outcome.largestLag,
        baseline: baseline, brokerDroppedMessages: brokerDropped, watch: FloodWatchOutput(readText(outputPath)),
        watchExitStatus: watch.exitStatus, sigtermSeconds: sigtermSeconds, peakBytes: watch.peakBytes, publishingEndedAt: publishingEndedAt,
        paused: paused))
}

/// Polls `condition` every 20 ms (processes and log files have no event to await) until
/// it holds or `limit` has passed; whether it held.
func waitUntil(_ limit: Duration, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}

/// `NAME` in this executable's folder (the release build's, where beaconctl is built too).
func siblingExecutable(_ name: String) -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    let own = length > 0 ? String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
    let folder = own.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    return (folder.isEmpty ? "." : folder) + "/" + name
}

func runFolder(_ options: FloodOptions, index: Int) -> String? {
    if let keep = options.keep {
        mkdir(keep, 0o755)
        let folder = "\(keep)/run-\(index + 1)"
        mkdir(folder, 0o755)
        return folder
    }
    var template = Array("/tmp/broker-flood-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else {
        print("ingest-benchmark: cannot make a temporary folder")
        return nil
    }
    return String(cString: made)
}

func removeFolder(_ folder: String) {
    guard let directory = opendir(folder) else { return }
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { unlink("\(folder)/\(name)") }
    }
    closedir(directory)
    rmdir(folder)
}
