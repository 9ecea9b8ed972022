import BenchmarkSupport
import BeaconCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The benchmark's air: one RootCanal on free loopback ports, and one Bumble process playing
/// every KBeacon (`kbeacon_peripheral.py --count N`, each beacon a controller of its own),
/// advertising connectably as beacons in service do (`--advertise-ibeacon`).
final class BenchmarkAir {
    let hciPort: UInt16
    let addresses: [BluetoothAddress]
    let folder: String
    private let rootCanal: BenchmarkChild
    private let beacons: BenchmarkChild

    /// The first beacon's address; the others follow it.
    static let firstAddress: UInt64 = 0xF0_4C_0A_00_01_00

    var endpoint: AirEndpoint { AirEndpoint(hciPort: hciPort, addresses: addresses, folder: folder) }

    private init(hciPort: UInt16, addresses: [BluetoothAddress], folder: String, rootCanal: BenchmarkChild, beacons: BenchmarkChild) {
        self.hciPort = hciPort
        self.addresses = addresses
        self.folder = folder
        self.rootCanal = rootCanal
        self.beacons = beacons
    }

    static func start(beacons count: Int, venv: String, script: String, folder: String) async -> Result<BenchmarkAir, BenchmarkFailure> {
        guard let rootCanalBinary = rootCanalBinary(in: venv) else {
            return .failure(BenchmarkFailure(
                "no RootCanal in the venv \(venv) (lib/python3.*/site-packages/rootcanal/bin/linux-*/rootcanal): run scripts/setup-venv.sh, or name the venv with --venv"))
        }
        let python = "\(venv)/bin/python3"
        guard access(python, X_OK) == 0 else { return .failure(BenchmarkFailure("no \(python): run scripts/setup-venv.sh")) }
        guard access(script, R_OK) == 0 else {
            return .failure(BenchmarkFailure("cannot read the KBeacon script \(script): run from the package's folder, or give --peripheral"))
        }
        let rootCanal: (BenchmarkChild, UInt16)
        switch await startRootCanal(rootCanalBinary, folder: folder) {
        case .success(let started): rootCanal = started
        case .failure(let failure): return .failure(failure)
        }
        let addresses = (0..<UInt64(count)).compactMap { BluetoothAddress(value: firstAddress + $0) }
        let output = "\(folder)/kbeacons.log"
        guard
            let beacons = BenchmarkChild(
                python, [script, "tcp-client:127.0.0.1:\(rootCanal.1)", "\(addresses[0])", "--count", "\(count)", "--advertise-ibeacon"],
                output: output, errors: "\(folder)/kbeacons.stderr", environment: ["PYTHONUNBUFFERED": "1"])
        else {
            await rootCanal.0.stop()
            return .failure(BenchmarkFailure("cannot start \(python)"))
        }
        let air = BenchmarkAir(hciPort: rootCanal.1, addresses: addresses, folder: folder, rootCanal: rootCanal.0, beacons: beacons)
        // Bumble says "ready" once every beacon advertises. A real process that announces
        // readiness only in its output: looked at again until then (a deadline, not an expectation).
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if readText(output).split(separator: "\n").contains("ready") { return .success(air) }
            if beacons.hasExited {
                await air.stop()
                return .failure(BenchmarkFailure(
                    "the Bumble KBeacons exited (status \(beacons.exitStatus ?? -1)) while starting: \(readText("\(folder)/kbeacons.stderr").suffix(2000))"))
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        await air.stop()
        return .failure(BenchmarkFailure("the Bumble KBeacons did not all advertise within 120 s; see \(folder)"))
    }

    func stop() async {
        await beacons.stop(grace: .seconds(5))
        await rootCanal.stop(grace: .seconds(5))
    }

    /// Lines the beacons printed that contain `text` (`connected`, `cfg `), each prefixed with
    /// its beacon's address.
    func beaconLines(containing text: String) -> [String] {
        readText("\(folder)/kbeacons.log").split(separator: "\n").map(String.init).filter { $0.contains(text) }
    }

    /// RootCanal as the rootcanal wheel installs it into the venv.
    private static func rootCanalBinary(in venv: String) -> String? {
        #if arch(x86_64)
        let architecture = "x86_64"
        #else
        let architecture = "aarch64"
        #endif
        guard let directory = opendir("\(venv)/lib") else { return nil }
        defer { closedir(directory) }
        var candidates: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("python3.") {
                candidates.append("\(venv)/lib/\(name)/site-packages/rootcanal/bin/linux-\(architecture)/rootcanal")
            }
        }
        return candidates.sorted().first { access($0, X_OK) == 0 }
    }

    /// RootCanal on four free ports, once it says it listens on its HCI port; tried again
    /// with other ports when one was taken between choosing and binding.
    private static func startRootCanal(_ binary: String, folder: String) async -> Result<(BenchmarkChild, UInt16), BenchmarkFailure> {
        var complaints: [String] = []
        for attempt in 1...3 {
            let ports = (0..<4).compactMap { _ in freeLoopbackPort() }
            guard ports.count == 4, Set(ports).count == 4 else { continue }
            let log = "\(folder)/rootcanal-\(attempt).log"
            let arguments = [
                "-hci_port", "\(ports[0])", "-test_port", "\(ports[1])", "-link_port", "\(ports[2])", "-link_ble_port", "\(ports[3])",
            ]
            guard let process = BenchmarkChild(binary, arguments, output: log, errors: "\(log).stderr") else {
                return .failure(BenchmarkFailure("cannot start \(binary)"))
            }
            // RootCanal logs "Listening on: PORT (FD)" once a server socket is bound, and
            // "Address already in use" (and keeps running) when a port was taken.
            let deadline = ContinuousClock.now + .seconds(60)
            var clash: String?
            while ContinuousClock.now < deadline, clash == nil {
                let text = readText(log) + readText("\(log).stderr")
                if text.contains("Listening on: \(ports[0]) (") { return .success((process, ports[0])) }
                if let line = text.split(separator: "\n").first(where: { $0.contains("Address already in use") }) { clash = String(line) }
                if process.hasExited { return .failure(BenchmarkFailure("RootCanal exited while starting: \(text.suffix(2000))")) }
                // A real process that says it is ready only in its log: looked at again.
                try? await Task.sleep(for: .milliseconds(20))
            }
            await process.stop(grace: .seconds(2))
            complaints.append(clash ?? "did not listen within 60 s")
        }
        return .failure(BenchmarkFailure("RootCanal could not start: \(complaints.joined(separator: " | "))"))
    }
}

/// Where the air's controllers and beacons are, for the measurements.
struct AirEndpoint: Sendable {
    let hciPort: UInt16
    let addresses: [BluetoothAddress]
    /// The run's folder (its manifest, the processes' logs).
    let folder: String
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
