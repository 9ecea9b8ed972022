import BeaconTestKit
import Foundation
import Glibc
import Synchronization
import Testing

/// A Mosquitto broker for one test: the Debian `mosquitto` binary on a free 127.0.0.1
/// port, its configuration, persistence and log in a temporary folder, stopped (and
/// startable again on the same port, with what it persisted) by the test.
final class MosquittoBroker: Sendable {
    /// Where Debian's package installs the broker; `PATH` is searched too.
    static let candidates = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"]
    static let startupTimeout: Duration = .seconds(60)

    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// The broker binary, or why there is none.
    static let binary: Result<String, Unavailable> = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for candidate in candidates + path.split(separator: ":").map({ "\($0)/mosquitto" })
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return .success(candidate)
        }
        return .failure(Unavailable(description: "no mosquitto broker (Debian package `mosquitto`); scripts/prepare.sh installs it"))
    }()

    /// Whether a missing broker fails the tests (`CI=true`) rather than skipping them.
    static var isRequired: Bool { RootCanalInstallation.isRequired }
    /// For `.enabled(if:)`: run when there is a broker, or when CI requires one (and then fail).
    static var shouldRun: Bool { isRequired || (try? binary.get()) != nil }

    /// A TLS listener: the broker's certificate and key, the CA it trusts for client
    /// certificates; with `requireCertificate` a client without one is refused, and with
    /// `useIdentityAsUsername` a certificate's common name is the client's user name (for
    /// the ACL's `%u`).
    struct TLSListener: Sendable {
        var certificateFile: String
        var keyFile: String
        var caFile: String
        var requireCertificate = true
        var useIdentityAsUsername = true
    }

    let port: UInt16
    let folder: URL
    /// `user:password` pairs the broker accepts; anonymous clients when empty.
    let users: [String: String]
    /// Whether it keeps sessions and QoS 1 messages across a restart (Debian's package
    /// configures it so; the broker's own default, elsewhere, does not).
    let persistence: Bool
    let tls: TLSListener?
    /// The text of an `acl_file`, when the broker has one.
    let acl: String?
    /// Clients (`user: password`) of Mosquitto's dynamic security plugin, none with a
    /// role: its default ACL lets them connect and refuses their publications and
    /// subscriptions (0x87), where an `acl_file` accepts a subscription and withholds the
    /// messages. `nil`: no plugin.
    let dynamicSecurityClients: [String: String]?
    static let pluginCandidates = [
        "/usr/lib/x86_64-linux-gnu/mosquitto_dynamic_security.so", "/usr/lib/aarch64-linux-gnu/mosquitto_dynamic_security.so",
        "/usr/lib/mosquitto_dynamic_security.so",
    ]
    private static let administrator = ("beaconctl-admin", UUID().uuidString)
    private let process = Mutex<ServerProcess?>(nil)

    /// At 127.0.0.1, the name the test certificates hold.
    var url: String { "\(tls == nil ? "mqtt" : "mqtts")://127.0.0.1:\(port)/test" }
    var logFile: URL { folder.appendingPathComponent("mosquitto.log") }

    private init(
        port: UInt16, folder: URL, users: [String: String], persistence: Bool, tls: TLSListener?, acl: String?,
        dynamicSecurityClients: [String: String]?
    ) {
        self.port = port
        self.folder = folder
        self.users = users
        self.persistence = persistence
        self.tls = tls
        self.acl = acl
        self.dynamicSecurityClients = dynamicSecurityClients
    }

    deinit {
        process.withLock { $0 }?.killIfRunning()
    }

    /// Starts a broker on a free port and returns once it accepts connections.
    static func start(
        users: [String: String] = [:], persistence: Bool = true, tls: TLSListener? = nil, acl: String? = nil,
        dynamicSecurityClients: [String: String]? = nil
    ) async throws -> MosquittoBroker {
        let binary = try binary.get()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beaconctl-mosquitto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let broker = MosquittoBroker(
            port: try FreeLoopbackPorts.pick(1)[0], folder: folder, users: users, persistence: persistence, tls: tls, acl: acl,
            dynamicSecurityClients: dynamicSecurityClients)
        try await broker.writeConfiguration()
        try await broker.launch(binary)
        if let clients = dynamicSecurityClients {
            // Created through the running broker, as mosquitto_ctrl does it (an MQTT client).
            for (user, password) in clients.sorted(by: { $0.key < $1.key }) {
                try await run("/usr/bin/mosquitto_ctrl", [
                    "-h", "127.0.0.1", "-p", "\(broker.port)", "-u", administrator.0, "-P", administrator.1,
                    "dynsec", "createClient", user, "-p", password,
                ])
            }
        }
        return broker
    }

    private func writeConfiguration() async throws {
        var lines = [
            "listener \(port) 127.0.0.1",
            // Started as root (CI), mosquitto would switch to the `mosquitto` user, which may
            // not write into this test's folder: it stays the user that runs the tests.
            "user \(Self.currentUserName())",
            // Persistence: QoS 1 messages and persistent sessions survive a restart.
            "persistence \(persistence)",
            "persistence_location \(folder.path)/",
            "autosave_interval 1",
            "log_dest file \(logFile.path)",
            "log_type all",
            "max_queued_messages 100000",
        ]
        if let tls {
            lines += ["cafile \(tls.caFile)", "certfile \(tls.certificateFile)", "keyfile \(tls.keyFile)"]
            lines.append("require_certificate \(tls.requireCertificate)")
            lines.append("use_identity_as_username \(tls.useIdentityAsUsername)")
        }
        if let acl {
            let file = folder.appendingPathComponent("acl")
            try acl.write(to: file, atomically: true, encoding: .utf8)
            lines.append("acl_file \(file.path)")
        }
        if dynamicSecurityClients != nil {
            guard let plugin = Self.pluginCandidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
                throw Unavailable(description: "no mosquitto_dynamic_security.so (Debian package `mosquitto`)")
            }
            let configuration = folder.appendingPathComponent("dynamic-security.json")
            try await Self.run("/usr/bin/mosquitto_ctrl", ["dynsec", "init", configuration.path, Self.administrator.0, Self.administrator.1])
            lines += ["plugin \(plugin)", "plugin_opt_config_file \(configuration.path)", "allow_anonymous false"]
        } else if tls?.useIdentityAsUsername == true {
            // The certificate is the identity: no password, no anonymous client.
            lines.append("allow_anonymous false")
        } else if users.isEmpty {
            lines.append("allow_anonymous true")
        } else {
            let passwords = folder.appendingPathComponent("passwords")
            try "".write(to: passwords, atomically: true, encoding: .utf8)
            for (user, password) in users.sorted(by: { $0.key < $1.key }) {
                try await Self.run("/usr/bin/mosquitto_passwd", ["-b", passwords.path, user, password])
            }
            lines += ["allow_anonymous false", "password_file \(passwords.path)"]
        }
        try (lines.joined(separator: "\n") + "\n").write(to: folder.appendingPathComponent("mosquitto.conf"), atomically: true, encoding: .utf8)
    }

    static func currentUserName() -> String {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return "root" }
        return String(cString: name)
    }

    /// Runs a helper program to its end without blocking a thread of the pool.
    static func run(_ executable: String, _ arguments: [String]) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let status = try await ChildProcess.runToEnd(process)
        guard status == .exited(0) else {
            throw Unavailable(description: "\(executable) \(arguments.first ?? "") \(status)")
        }
    }

    private func launch(_ binary: String) async throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: binary)
        child.arguments = ["-c", folder.appendingPathComponent("mosquitto.conf").path]
        child.standardInput = FileHandle.nullDevice
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        let server = try ServerProcess(starting: child)
        process.withLock { $0 = server }
        let deadline = ContinuousClock.now + Self.startupTimeout
        while ContinuousClock.now < deadline {
            if let status = server.status {
                throw Unavailable(description: "mosquitto \(status) while starting; its log:\n\(logTail())")
            }
            if let probe = try? await LoopbackSocket.connect(toPort: port, timeout: .seconds(5)) {
                probe.close()
                return
            }
            // A real broker announces readiness only by accepting: its port is tried again.
            try await Task.sleep(for: .milliseconds(20))
        }
        throw Unavailable(description: "mosquitto did not accept connections on 127.0.0.1:\(port) within \(Self.startupTimeout); its log:\n\(logTail())")
    }

    /// Stops the broker (SIGTERM: it saves its persistence file first) and waits for it;
    /// SIGKILL after 10 s, which loses what it had not saved.
    func stop() async {
        await process.withLock({ $0 })?.stop(grace: .seconds(10))
    }

    /// Starts it again on the same port with what it persisted.
    func restart() async throws {
        await stop()
        try await launch(try Self.binary.get())
    }

    func logTail(lines: Int = 30) -> String {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? "(no log)"
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    func removeFolder() {
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Runs `body` with a fresh broker, always stopping it; the folder is kept when the body
/// threw, for its log.
func withMosquitto<T>(
    users: [String: String] = [:], persistence: Bool = true, tls: MosquittoBroker.TLSListener? = nil, acl: String? = nil,
    dynamicSecurityClients: [String: String]? = nil, _ body: (MosquittoBroker) async throws -> T
) async throws -> T {
    let broker = try await MosquittoBroker.start(
        users: users, persistence: persistence, tls: tls, acl: acl, dynamicSecurityClients: dynamicSecurityClients)
    do {
        let value = try await body(broker)
        await broker.stop()
        broker.removeFolder()
        return value
    } catch {
        await broker.stop()
        throw error
    }
}
