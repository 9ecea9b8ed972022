import BeaconFleet
import Foundation

/// One benchmark run: the air, the baseline, the provisioning, the figures.
enum ProvisionBenchmark {
    static func run(_ options: ProvisionBenchmarkOptions) async -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        let venv = options.venv ?? environment["BEACONCTL_VENV"].flatMap { $0.isEmpty ? nil : $0 } ?? ".venv"
        var template = Array("\(FileManager.default.temporaryDirectory.path)/provision-benchmark-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            print("provision-benchmark: cannot make a temporary folder")
            return 2
        }
        let folder = String(cString: made)
        let air: BenchmarkAir
        switch await BenchmarkAir.start(beacons: options.beacons, venv: venv, script: options.peripheralScript, folder: folder) {
        case .success(let started): air = started
        case .failure(let failure):
            print("provision-benchmark: \(failure) (files in \(folder))")
            return 2
        }
        print("provision-benchmark: \(options.beacons) Bumble KBeacons on RootCanal, pinned by mac:; six fields each, read back, then one scan hears them all")
        var failed = false
        do {
            failed = try await measure(air, options)
        } catch {
            print("provision-benchmark: a run failed: \(error)")
            failed = true
        }
        await air.stop()
        if failed {
            print("provision-benchmark: files kept in \(folder)")
            return 1
        }
        try? FileManager.default.removeItem(atPath: folder)
        return 0
    }

    /// Prints the figures; true when a beacon was not provisioned and verified.
    private static func measure(_ air: BenchmarkAir, _ options: ProvisionBenchmarkOptions) async throws -> Bool {
        let baseline = try await BenchmarkRuns.connectionsAlone(on: air.endpoint)
        let baselineTotal = baseline.reduce(0, +)
        let (result, breakdown) = try await BenchmarkRuns.provisionAll(on: air.endpoint, options: options)
        let provisioned = result.results.filter { $0.status == .provisioned && $0.verdict == "ok" }
        // What the beacons themselves say they applied (their "ADDRESS cfg …" lines).
        let applied = Set(air.beaconLines(containing: " cfg advObj").compactMap { $0.split(separator: " ").first.map(String.init) })
        let count = Double(options.beacons)
        let perMinute = Double(provisioned.count) / breakdown.total * 60

        print("baseline, connect + disconnect alone: \(decimal(baselineTotal / count * 1000, 0)) ms a beacon (\(decimal(baselineTotal, 2)) s for \(options.beacons))")
        print("provisioned and verified on the air: \(provisioned.count) of \(options.beacons) in \(decimal(breakdown.total, 2)) s: \(decimal(perMinute, 1)) beacons a minute (a person with a vendor app: 1–2)")
        print("")
        print([padded("step", 24), padded("total s", 9), padded("ms a beacon", 12), padded("share", 7)].joined(separator: " "))
        func row(_ name: String, _ seconds: Double) {
            print([
                padded(name, 24), padded(decimal(seconds, 2), 9), padded(decimal(seconds / count * 1000, 0), 12),
                padded("\(decimal(seconds / breakdown.total * 100, 0)) %", 7),
            ].joined(separator: " "))
        }
        row("discovery scan", breakdown.discovery)
        for phase in HardwareProvisioningPhase.allCases {
            guard let seconds = breakdown.phases[phase] else { continue }
            row(phase.rawValue, seconds)
        }
        row("between beacons", breakdown.between)
        row("verification scan", breakdown.verification)
        let linkSetUp = (breakdown.phases[.connecting] ?? 0) + (breakdown.phases[.disconnecting] ?? 0)
        print("")
        print("connect + disconnect while provisioning: \(decimal(linkSetUp / count * 1000, 0)) ms a beacon, against \(decimal(baselineTotal / count * 1000, 0)) ms alone")
        print("the rest (scans, profile, password, reads, writes): \(decimal(breakdown.total - linkSetUp, 2)) s of \(decimal(breakdown.total, 2)) s")
        guard provisioned.count == options.beacons, applied.count == options.beacons else {
            print("provision-benchmark: \(provisioned.count) of \(options.beacons) provisioned and verified, \(applied.count) say they applied a configuration:")
            for other in result.results where !(other.status == .provisioned && other.verdict == "ok") {
                print("  \(other.beaconID): \(other.status.rawValue): \(other.detail)")
            }
            return true
        }
        return false
    }

    private static func decimal(_ value: Double, _ places: Int) -> String { String(format: "%.\(places)f", value) }
    private static func padded(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }
}
