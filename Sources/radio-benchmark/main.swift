#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// radio-benchmark: how much faster than real time does the virtual air run?
///
///     swift run -c release radio-benchmark [--beacons 1,100,1000] [--repeat 3] [--check]
///
/// For each beacon count, three runs of the same advertising:
/// - full: one scanner listens continuously and its host (`HostController`) decodes every
///   report: scheduling, propagation, reception, HCI encoding, transport and host decoding;
/// - air: the same scanner with its transport read directly and every packet decoded as an
///   HCI event, no host controller: what the air itself costs, delivery included;
/// - baseline: the same beacons with nobody listening: the bare cost of scheduling the
///   advertising events and sending their PDUs onto an empty air.
/// The best of `--repeat` runs is kept (the least disturbed by other work on the machine).

/// The target: at 100 beacons and one scanner, at least 100 times real time.
let realTimeTarget = 100.0
let realTimeTargetBeacons = 100

let options = RadioBenchmarkOptions.parseOrExit()

func best(of repeats: Int, _ run: RadioBenchmarkRun) async throws -> RadioBenchmarkRun.Result {
    var best = try await run.run()
    for _ in 1..<max(1, repeats) {
        let result = try await run.run()
        if result.wall < best.wall { best = result }
    }
    return best
}

func format(_ value: Double, decimals: Int = 0) -> String {
    var text = String(Int((value * pow(10, Double(decimals))).rounded()))
    if decimals > 0 {
        while text.count <= decimals { text = "0" + text }
        text.insert(".", at: text.index(text.endIndex, offsetBy: -decimals))
    }
    return text
}

func padded(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
}

print("radio-benchmark: iBeacons every 100 ms (+0–10 ms advDelay) on a virtual air, σ = 4 dB; best of \(options.repeats)")
print("full: one scanner, continuous extended scanning, HostController decoding every report")
print("air: the same scanner's transport read and decoded directly, no host controller")
print("baseline: the same advertising with no scanner on the air\n")
let header = [
    "beacons", "air time", "adv events", "reports", "full wall", "events/s", "× real time",
    "air wall", "× real time", "base wall", "events/s", "× real time",
]
let widths = [7, 9, 11, 9, 10, 10, 12, 10, 12, 10, 10, 12]
print(zip(header, widths).map { padded($0, $1) }.joined(separator: " "))

var missedTarget = false
do {
    for count in options.beaconCounts {
        let full = try await best(of: options.repeats, RadioBenchmarkRun(beaconCount: count, listener: .hostController))
        let air = try await best(of: options.repeats, RadioBenchmarkRun(beaconCount: count, listener: .decodingTransport))
        let baseline = try await best(of: options.repeats, RadioBenchmarkRun(beaconCount: count, listener: .none))
        let row = [
            String(count), "\(Int(full.simulated.secondsValue)) s", String(full.advertisingEvents), String(full.reports),
            "\(format(full.wall.secondsValue * 1000, decimals: 1)) ms", format(full.eventsPerWallSecond),
            format(full.realTimeFactor), "\(format(air.wall.secondsValue * 1000, decimals: 1)) ms", format(air.realTimeFactor),
            "\(format(baseline.wall.secondsValue * 1000, decimals: 1)) ms",
            format(baseline.eventsPerWallSecond), format(baseline.realTimeFactor),
        ]
        print(zip(row, widths).map { padded($0, $1) }.joined(separator: " "))
        if count == realTimeTargetBeacons && full.realTimeFactor < realTimeTarget { missedTarget = true }
    }
} catch {
    print("radio-benchmark: a run failed: \(error)")
    exit(3)
}
if options.beaconCounts.contains(realTimeTargetBeacons) {
    print("\ntarget: \(realTimeTargetBeacons) beacons and one scanner at ≥ \(Int(realTimeTarget))× real time: \(missedTarget ? "MISSED" : "met")")
}
if options.check && missedTarget { exit(1) }
