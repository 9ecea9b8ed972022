import BenchmarkSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A Mosquitto broker for one flood run: the Debian binary on a free 127.0.0.1 port, its
/// configuration and log in the run's folder, no persistence, and otherwise the broker's
/// own defaults (as `apt-get install mosquitto` runs it, Debian's configuration adding only
/// persistence): in particular at most 1,000 QoS 1 messages queued for a client that reads
/// slower than the load arrives (`max_queued_messages`), beyond which the broker drops them.
final class FloodBroker {
    static let candidates = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"]
    let port: UInt16
    let logPath: String
    private let process: BenchmarkChild

    /// Why there is none, or the broker once it accepts connections.
    static func start(folder: String, maximumQueued: Int?) async -> Result<FloodBroker, FloodFailure> {
        guard let binary = candidates.first(where: { access($0, X_OK) == 0 }) else {
            return .failure(FloodFailure("no mosquitto broker (Debian package `mosquitto`): scripts/prepare.sh mosquitto installs it"))
        }
        guard let port = freeLoopbackPort() else { return .failure(FloodFailure("no free loopback port")) }
        let logPath = "\(folder)/mosquitto.log"
        var lines = [
            "listener \(port) 127.0.0.1",
            "allow_anonymous true",
            // Started as root, mosquitto would switch to the `mosquitto` user, which may not
            // write into this run's folder.
            "user \(currentUserName())",
            "persistence false",
            // $SYS/broker/publish/messages/dropped every second: what the broker itself dropped.
            "sys_interval 1",
            "log_dest file \(logPath)",
            // Not `all`: a line per message would cost the broker more than the load. The
            // subscriptions are logged, which is how the watch is known to be reading.
            "log_type error", "log_type warning", "log_type notice", "log_type information", "log_type subscribe",
        ]
        if let maximumQueued { lines.append("max_queued_messages \(maximumQueued)") }
        let configuration = "\(folder)/mosquitto.conf"
        guard writeText(lines.joined(separator: "\n") + "\n", to: configuration) else {
            return .failure(FloodFailure("cannot write \(configuration)"))
        }
        guard let process = BenchmarkChild(binary, ["-c", configuration], output: "/dev/null", errors: "\(folder)/mosquitto.stderr") else {
            return .failure(FloodFailure("cannot start \(binary)"))
        }
        let broker = FloodBroker(port: port, logPath: logPath, process: process)
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if process.hasExited {
                return .failure(FloodFailure("mosquitto exited (status \(process.exitStatus ?? -1)) while starting: \(readText(logPath))"))
            }
            if readText(logPath).contains("running") { return .success(broker) }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return .failure(FloodFailure("mosquitto did not start within 20 s: \(readText(logPath))"))
    }

    private init(port: UInt16, logPath: String, process: BenchmarkChild) {
        self.port = port
        self.logPath = logPath
        self.process = process
    }

    /// Whether a client whose id starts with `clientIDPrefix` has subscribed to a topic
    /// filter containing `topic` (`log_type subscribe`: "TIME: CLIENT QOS FILTER").
    func hasSubscription(clientIDPrefix: String, topic: String) -> Bool {
        readText(logPath).split(separator: "\n").contains { line in
            line.contains(": \(clientIDPrefix)") && line.contains(topic)
        }
    }

    func stop() async { await process.stop() }

    private static func currentUserName() -> String {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return "root" }
        return String(cString: name)
    }
}

struct FloodFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
