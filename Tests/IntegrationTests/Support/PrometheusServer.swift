import BeaconTestKit
import Foundation
import Glibc
import Synchronization
import Testing

/// A Prometheus server for one test: Debian's `prometheus` on a free 127.0.0.1 port,
/// scraping one target every second, its configuration and storage in a temporary folder;
/// and `promtool`, which checks an exposition. Both come with the Debian package
/// `prometheus` (scripts/test.sh has scripts/prepare.sh install it).
final class PrometheusServer: Sendable {
    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    static func find(_ name: String) -> Result<String, Unavailable> {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for candidate in ["/usr/bin/\(name)"] + path.split(separator: ":").map({ "\($0)/\(name)" })
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return .success(candidate)
        }
        return .failure(Unavailable(description: "no \(name) (Debian package `prometheus`); scripts/prepare.sh prometheus installs it"))
    }

    static let binary = find("prometheus")
    static let promtool = find("promtool")
    /// For `.enabled(if:)`: run when Prometheus is installed, or when CI requires it (and then fail).
    static var shouldRun: Bool { RootCanalInstallation.isRequired || ((try? binary.get()) != nil && (try? promtool.get()) != nil) }
    /// Generous: only turns a hang into a failure (a first start on a busy machine).
    static let startupTimeout: Duration = .seconds(120)

    let port: UInt16
    let folder: URL
    private let process: ServerProcess
    var logFile: URL { folder.appendingPathComponent("prometheus.log") }

    private init(port: UInt16, folder: URL, process: ServerProcess) {
        self.port = port
        self.folder = folder
        self.process = process
    }

    deinit {
        process.killIfRunning()
    }

    /// Starts Prometheus scraping `target` (`127.0.0.1:PORT`, path /metrics) every second,
    /// and returns once it says it is ready.
    static func start(scraping target: String) async throws -> PrometheusServer {
        let binary = try binary.get()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beaconctl-prometheus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let configuration = """
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
              evaluation_interval: 1s
            scrape_configs:
              - job_name: beaconctl
                static_configs:
                  - targets: ['\(target)']

            """
        let configurationFile = folder.appendingPathComponent("prometheus.yml")
        try configuration.write(to: configurationFile, atomically: true, encoding: .utf8)
        let port = try FreeLoopbackPorts.pick(1)[0]
        _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("prometheus.log").path, contents: nil)
        let log = try FileHandle(forWritingTo: folder.appendingPathComponent("prometheus.log"))
        let child = Process()
        child.executableURL = URL(fileURLWithPath: binary)
        child.arguments = [
            "--config.file=\(configurationFile.path)", "--storage.tsdb.path=\(folder.appendingPathComponent("data").path)",
            "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn",
        ]
        child.standardInput = FileHandle.nullDevice
        child.standardOutput = log
        child.standardError = log
        let running = try ServerProcess(starting: child)
        let server = PrometheusServer(port: port, folder: folder, process: running)
        let deadline = ContinuousClock.now + startupTimeout
        while ContinuousClock.now < deadline {
            if let status = running.status {
                throw Unavailable(description: "prometheus \(status) while starting; its log:\n\(server.logTail())")
            }
            if let answer = try? await LoopbackHTTP.get(port: port, "/-/ready"), answer.status == 200 { return server }
            // Prometheus says it is ready only when asked: its readiness endpoint is polled.
            try await Task.sleep(for: .milliseconds(100))
        }
        await server.stop()
        throw Unavailable(description: "prometheus was not ready on 127.0.0.1:\(port) within \(startupTimeout); its log:\n\(server.logTail())")
    }

    /// The instant vector of `query` through the HTTP API (`/api/v1/query`): each series'
    /// labels and value.
    func query(_ query: String) async throws -> [(labels: [String: String], value: Double)] {
        let encoded = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query
        let answer = try await LoopbackHTTP.get(port: port, "/api/v1/query?query=\(encoded)")
        guard answer.status == 200,
              let object = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any],
              object["status"] as? String == "success",
              let data = object["data"] as? [String: Any], let results = data["result"] as? [[String: Any]]
        else { throw Unavailable(description: "query \(query): \(answer)") }
        return results.compactMap { result in
            guard let labels = result["metric"] as? [String: String], let value = result["value"] as? [Any],
                  value.count == 2, let text = value[1] as? String, let number = Double(text)
            else { return nil }
            return (labels, number)
        }
    }

    /// Stops Prometheus (SIGTERM) and waits for it; SIGKILL after 10 s.
    func stop() async {
        await process.stop(grace: .seconds(10))
    }

    func logTail(lines: Int = 30) -> String {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? "(no log)"
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    func removeFolder() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// `promtool check metrics` on `exposition`: its findings (empty when clean) and status.
    static func checkMetrics(_ exposition: String) async throws -> (status: Int32, output: String) {
        try await runPromtool(["check", "metrics"], input: exposition)
    }

    /// `promtool check rules FILE`.
    static func checkRules(_ file: String) async throws -> (status: Int32, output: String) {
        try await runPromtool(["check", "rules", file], input: "")
    }

    private static func runPromtool(_ arguments: [String], input: String) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try promtool.get())
        process.arguments = arguments
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beaconctl-promtool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Files, not pipes: nothing to drain while it runs.
        let inputFile = folder.appendingPathComponent("input")
        let outputFile = folder.appendingPathComponent("output")
        try input.write(to: inputFile, atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        process.standardInput = try FileHandle(forReadingFrom: inputFile)
        let output = try FileHandle(forWritingTo: outputFile)
        process.standardOutput = output
        process.standardError = output
        let status = try await ChildProcess.runToEnd(process)
        try output.close()
        return (status.value, (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "")
    }
}

/// Runs `body` with a Prometheus scraping `target`, always stopping it; the folder is kept
/// when the body threw, for its log.
func withPrometheus<T>(scraping target: String, _ body: (PrometheusServer) async throws -> T) async throws -> T {
    let server = try await PrometheusServer.start(scraping: target)
    do {
        let value = try await body(server)
        await server.stop()
        server.removeFolder()
        return value
    } catch {
        await server.stop()
        throw error
    }
}
