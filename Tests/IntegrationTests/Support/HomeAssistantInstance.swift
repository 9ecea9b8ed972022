import BeaconTestKit
import Foundation
import Glibc
import Synchronization
import Testing

/// A real Home Assistant for one test: `hass` from the virtual environment the Home
/// Assistant lane installs (scripts/test-home-assistant.sh, pinned in
/// scripts/requirements-home-assistant.txt), on a free 127.0.0.1 port with a fresh
/// configuration folder, onboarded and given the MQTT integration through its HTTP API the
/// way its own frontend does it (Home Assistant's `onboarding` views and the MQTT
/// integration's config flow).
final class HomeAssistantInstance: Sendable {
    /// The lane sets it to the virtual environment; without it the tests are skipped (the
    /// unit suite does not install Home Assistant). Set, a missing `hass` is a failure.
    static let venvVariable = "BEACONCTL_HOME_ASSISTANT_VENV"
    static var venv: String? {
        ProcessInfo.processInfo.environment[venvVariable].flatMap { $0.isEmpty ? nil : $0 }
    }
    static var shouldRun: Bool { venv != nil }

    /// Generous: only turns a hang into a failure. A first start on a busy 2-core machine
    /// takes tens of seconds.
    static let startupTimeout: Duration = .seconds(300)

    let port: UInt16
    let folder: URL
    private let process: ServerProcess
    private let token = Mutex<String?>(nil)
    /// What the onboarding and the API calls identify as; Home Assistant checks only that
    /// the redirect URI is on the client id's host.
    var clientID: String { "http://127.0.0.1:\(port)/" }
    var logFile: URL { folder.appendingPathComponent("home-assistant.log") }

    private init(port: UInt16, folder: URL, process: ServerProcess) {
        self.port = port
        self.folder = folder
        self.process = process
    }

    deinit {
        process.killIfRunning()
    }

    /// Starts `hass` with a fresh configuration and returns once its HTTP API answers.
    /// `--skip-pip`: everything it needs is installed by the lane; Home Assistant must not
    /// reach for the network at start.
    static func start(venv: String) async throws -> HomeAssistantInstance {
        let hass = URL(fileURLWithPath: venv).appendingPathComponent("bin/hass")
        guard FileManager.default.isExecutableFile(atPath: hass.path) else {
            throw Failure("\(venvVariable)=\(venv) has no bin/hass: run scripts/test-home-assistant.sh, which installs it")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beaconctl-home-assistant-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let port = try FreeLoopbackPorts.pick(1)[0]
        // Only what the test needs: the HTTP API on loopback. The default integrations
        // (frontend, onboarding, config, …) load without being listed.
        let configuration = """
            homeassistant:
              name: beaconctl test
              time_zone: UTC
            http:
              server_host: 127.0.0.1
              server_port: \(port)
            logger:
              default: warning
            automation: !include automations.yaml

            """
        try configuration.write(to: folder.appendingPathComponent("configuration.yaml"), atomically: true, encoding: .utf8)
        // Where the automation editor (and `addAutomation`) writes.
        try "[]\n".write(to: folder.appendingPathComponent("automations.yaml"), atomically: true, encoding: .utf8)
        let child = Process()
        child.executableURL = hass
        child.arguments = ["--config", folder.path, "--skip-pip"]
        child.standardInput = FileHandle.nullDevice
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        let running = try ServerProcess(starting: child)
        let instance = HomeAssistantInstance(port: port, folder: folder, process: running)
        let deadline = ContinuousClock.now + startupTimeout
        while ContinuousClock.now < deadline {
            if let status = running.status {
                throw Failure("hass \(status) while starting; its log:\n\(instance.logTail())")
            }
            if let answer = try? await instance.request("GET", "/api/onboarding", authorized: false), answer.status == 200 {
                return instance
            }
            // Polling the process's HTTP port: it says nothing else when it is ready.
            try await Task.sleep(for: .milliseconds(250))
        }
        instance.stopNow()
        throw Failure("Home Assistant did not answer on 127.0.0.1:\(port) within \(startupTimeout); its log:\n\(instance.logTail())")
    }

    /// Creates the owner (onboarding `users`), trades the code it answers for a token
    /// (`/auth/token`), and finishes the analytics and integration steps. The core_config
    /// step is left out: it sets up weather, radio and text-to-speech services from the
    /// internet, none of which the test wants (the API does not need onboarding finished).
    func onboard() async throws {
        let user = try await json("POST", "/api/onboarding/users", authorized: false, body: [
            "client_id": clientID, "name": "Test", "username": "test", "password": "beaconctl-test", "language": "en",
        ])
        let code = try #require(user["auth_code"] as? String, "onboarding users: \(user)")
        let form = "grant_type=authorization_code&code=\(code)&client_id=\(clientID.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? clientID)"
        let answer = try await request(
            "POST", "/auth/token", authorized: false, body: Array(form.utf8), contentType: "application/x-www-form-urlencoded")
        let tokens = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any], "auth/token: \(answer)")
        token.withLock { $0 = tokens["access_token"] as? String }
        try #require(token.withLock { $0 } != nil, "auth/token gave no access_token: \(answer)")
        _ = try await json("POST", "/api/onboarding/analytics", body: [:])
        _ = try await json("POST", "/api/onboarding/integration", body: ["client_id": clientID, "redirect_uri": "\(clientID)?auth_callback=1"])
    }

    /// The MQTT integration's config flow: the user step shows the broker form, the broker
    /// step connects and creates the entry (discovery on, prefix `homeassistant`).
    func addMQTT(brokerPort: UInt16) async throws {
        let form = try await json("POST", "/api/config/config_entries/flow", body: ["handler": "mqtt", "show_advanced_options": false])
        let flowID = try #require(form["flow_id"] as? String, "MQTT flow: \(form)")
        #expect(form["step_id"] as? String == "broker", "\(form)")
        let entry = try await json("POST", "/api/config/config_entries/flow/\(flowID)", body: ["broker": "127.0.0.1", "port": Int(brokerPort)])
        #expect(entry["type"] as? String == "create_entry", "MQTT flow's broker step: \(entry)")
        let result = try #require(entry["result"] as? [String: Any], "\(entry)")
        #expect(result["state"] as? String == "loaded", "the MQTT entry did not load: \(entry)\n\(logTail())")
    }

    /// An automation, as the automation editor saves one (`/api/config/automation/config/ID`:
    /// written to automations.yaml, then the automations reloaded).
    func addAutomation(id: String, _ configuration: [String: Any]) async throws {
        let saved = try await json("POST", "/api/config/automation/config/\(id)", body: configuration)
        #expect(saved["result"] as? String == "ok", "saving automation \(id): \(saved)")
    }

    /// `/api/states`, by entity id.
    func states() async throws -> [String: [String: Any]] {
        let answer = try await request("GET", "/api/states")
        guard answer.status == 200, let list = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [[String: Any]] else {
            throw Failure("GET /api/states: \(answer)")
        }
        var states: [String: [String: Any]] = [:]
        for state in list {
            if let id = state["entity_id"] as? String { states[id] = state }
        }
        return states
    }

    /// A template rendered by Home Assistant (`/api/template`).
    func render(_ template: String) async throws -> String {
        let answer = try await request("POST", "/api/template", body: Array(try JSONSerialization.data(withJSONObject: ["template": template])))
        guard answer.status == 200 else { throw Failure("POST /api/template \(template): \(answer)") }
        return String(decoding: answer.body, as: UTF8.self)
    }

    /// Polls `/api/states` until `condition` holds; the deadline only turns a hang into a
    /// failure. Home Assistant pushes nothing to a plain HTTP client: polling is the event.
    func waitForStates(
        _ what: String, timeout: Duration = .seconds(240), _ condition: ([String: [String: Any]]) -> Bool
    ) async throws -> [String: [String: Any]] {
        let deadline = ContinuousClock.now + timeout
        var last: [String: [String: Any]] = [:]
        while ContinuousClock.now < deadline {
            last = try await states()
            if condition(last) { return last }
            guard process.isRunning else { throw Failure("Home Assistant exited while waiting for \(what); its log:\n\(logTail())") }
            // A real process's HTTP API announces no change of its states: asked again.
            try await Task.sleep(for: .milliseconds(250))
        }
        throw Failure("Home Assistant never showed \(what) within \(timeout); its log:\n\(logTail())")
    }

    /// Stops Home Assistant: SIGTERM, SIGKILL after 30 s.
    func stop() async {
        await process.stop(grace: .seconds(30))
    }

    private func stopNow() {
        process.killIfRunning()
    }

    /// The lines of its log that are errors.
    func loggedErrors() -> [String] {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.contains(" ERROR ") }.map(String.init)
    }

    func logTail(lines: Int = 40) -> String {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? "(no log)"
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    func removeFolder() {
        try? FileManager.default.removeItem(at: folder)
    }

    // MARK: HTTP/1.1 on loopback

    typealias Answer = LoopbackHTTP.Answer

    /// A request and its JSON object answer; anything but 200 is a failure.
    func json(_ method: String, _ path: String, authorized: Bool = true, body: [String: Any]) async throws -> [String: Any] {
        let answer = try await request(method, path, authorized: authorized, body: Array(try JSONSerialization.data(withJSONObject: body)))
        guard answer.status == 200 else { throw Failure("\(method) \(path): \(answer)\n\(logTail())") }
        return try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any] ?? [:]
    }

    /// One request on its own connection.
    func request(
        _ method: String, _ path: String, authorized: Bool = true, body: [UInt8] = [], contentType: String = "application/json"
    ) async throws -> Answer {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if authorized, let token = token.withLock({ $0 }) { head += "Authorization: Bearer \(token)\r\n" }
        if method != "GET" { head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n" }
        return try await LoopbackHTTP.request(port: port, head: head, body: body)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// Runs `body` with a fresh Home Assistant, always stopping it; its folder is kept when
/// the body threw, for its log.
func withHomeAssistant<T>(venv: String, _ body: (HomeAssistantInstance) async throws -> T) async throws -> T {
    let instance = try await HomeAssistantInstance.start(venv: venv)
    do {
        let value = try await body(instance)
        await instance.stop()
        instance.removeFolder()
        return value
    } catch {
        await instance.stop()
        throw error
    }
}
