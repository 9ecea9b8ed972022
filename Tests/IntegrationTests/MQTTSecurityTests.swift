import BeaconMQTT
import Foundation
import Glibc
import Testing

/// The broker link secured, as an operator sets it up: a real Mosquitto with TLS, client
/// certificates and an ACL per receiver (the configuration docs/mqtt.md shows), certificates
/// made by the test with `openssl`; refusals that stop at once and say why; MQTT 5's
/// reason codes read, and MQTT 3.1.1's silence said.
///
/// "At once" is shown by the outcome, not a stopwatch: the run ends with the reason, never
/// with the 10 s drain's "did not acknowledge", and never retries ("reconnecting").
@Suite("beaconctl through a secured broker (TLS, client certificates, ACL)", .enabled(if: MosquittoBroker.shouldRun), .serialized)
struct MQTTSecurityTests {
    /// Each receiver writes its own sightings and status, named by its certificate's common
    /// name (`use_identity_as_username`); `audit` reads everything. As in docs/mqtt.md.
    static let receiverACL = """
        pattern write test/sightings/%u
        pattern write test/status/%u

        user audit
        topic read test/#
        topic write test/audit/#
        topic write test/monitor/#
        topic write homeassistant/#

        """

    static func recording(in folder: URL) throws -> URL {
        let recording = folder.appendingPathComponent("sightings.jsonl")
        try MQTTCommandTests.recording().write(to: recording, atomically: true, encoding: .utf8)
        return recording
    }

    static func environment(ca: String?, client: TestCertificates.Pair?) -> [String: String] {
        var environment: [String: String] = [:]
        if let ca { environment[MQTTTLS.caFileVariable] = ca }
        if let client {
            environment[MQTTTLS.certificateFileVariable] = client.certificate
            environment[MQTTTLS.keyFileVariable] = client.key
        }
        return environment
    }

    /// Runs `body` with fresh certificates and a TLS broker using them (`broker` or the one
    /// for another host), removing the certificates afterwards.
    static func withTLSBroker(
        forAnotherHost: Bool = false, acl: String? = receiverACL, _ body: (MosquittoBroker, TestCertificates) async throws -> Void
    ) async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let served = forAnotherHost ? certificates.brokerForAnotherHost : certificates.broker
        let listener = MosquittoBroker.TLSListener(certificateFile: served.certificate, keyFile: served.key, caFile: certificates.ca.certificate)
        try await withMosquitto(tls: listener, acl: acl) { broker in try await body(broker, certificates) }
    }

    /// A refusal that stopped the run at once: exit 3, the reason, no retry, no 10 s wait.
    static func expectStoppedAtOnce(_ scan: BeaconctlProcess, saying reasons: [String], sourceLocation: SourceLocation = #_sourceLocation) async {
        #expect(await scan.waitForExit() == 3, "\(scan.standardError)", sourceLocation: sourceLocation)
        for reason in reasons {
            #expect(scan.standardError.contains(reason), "\(scan.standardError)", sourceLocation: sourceLocation)
        }
        #expect(!scan.standardError.contains("did not acknowledge"), "\(scan.standardError)", sourceLocation: sourceLocation)
        #expect(!scan.standardError.contains("reconnecting"), "\(scan.standardError)", sourceLocation: sourceLocation)
        #expect(!scan.standardError.contains("every one acknowledged"), "\(scan.standardError)", sourceLocation: sourceLocation)
    }

    func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beaconctl-mqtts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("mqtts:// with client certificates and an ACL per receiver: every sighting delivered, read by the audit's certificate", .timeLimit(.minutes(3)))
    func deliveryWithClientCertificates() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recording = try Self.recording(in: folder)
        try await Self.withTLSBroker { broker, certificates in
            let audit = try await certificates.client("audit")
            let receiver = try await certificates.client("shop-1")
            let clientID = "tls-reader-\(UUID().uuidString.prefix(8))"
            var readerEnvironment = Self.environment(ca: certificates.ca.certificate, client: audit)
            readerEnvironment["BEACONCTL_MQTT_CLIENT_ID_PREFIX"] = clientID
            let reader = try BeaconctlProcess(["scan", "--input", broker.url, "--format", "jsonl"], environment: readerEnvironment)
            try await MQTTCommandTests.waitForSubscription(broker, clientID: clientID)
            let scan = try BeaconctlProcess(
                ["scan", "--input", recording.path, "--receiver", "shop-1", "--mqtt", broker.url, "--format", "jsonl"],
                environment: Self.environment(ca: certificates.ca.certificate, client: receiver))
            #expect(await scan.waitForExit() == 0, "scan: \(scan.standardError)")
            #expect(scan.standardError.contains("published 50 sightings to mqtts://127.0.0.1:\(broker.port)/test"), "\(scan.standardError)")
            #expect(scan.standardError.contains("every one acknowledged"), "\(scan.standardError)")
            #expect(!scan.standardError.contains("cannot be confirmed"), "MQTT 5 confirms: \(scan.standardError)")
            #expect(await reader.waitForOutput("all 50 sightings") { $0.filter { $0.contains(#""receiver":"shop-1""#) }.count == 50 })
            reader.signal(SIGINT)
            #expect(await reader.waitForExit() == 0, "\(reader.standardError)")
        }
    }

    @Test("verify (one pass) and monitor read over mqtts:// with the audit's certificate", .timeLimit(.minutes(3)))
    func readersOverTLS() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = folder.appendingPathComponent("fleet.yaml")
        try MQTTCommandTests.manifest.write(to: manifest, atomically: true, encoding: .utf8)
        // The door for 2 s on the wall clock of now (both readers follow the wall clock).
        let now = Date().timeIntervalSince1970
        let lines = (0..<20).map { tick in
            #"{"uuid":"\#(MQTTCommandTests.uuid)","major":1,"minor":1,"measured_power":-45,"address":"C4:5B:BE:00:00:01","address_random":false,"rssi":-60,"time":\#(String(format: "%.3f", now + Double(tick) / 10)),"clock":"unix","receiver":"shop-1"}"#
        }
        let recording = folder.appendingPathComponent("sightings.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: recording, atomically: true, encoding: .utf8)
        try await Self.withTLSBroker { broker, certificates in
            let audit = try await certificates.client("audit")
            let receiver = try await certificates.client("shop-1")
            func readerEnvironment(_ prefix: String) -> [String: String] {
                var environment = Self.environment(ca: certificates.ca.certificate, client: audit)
                environment["BEACONCTL_MQTT_CLIENT_ID_PREFIX"] = prefix
                return environment
            }
            let verifyID = "tls-verify-\(UUID().uuidString.prefix(8))"
            let monitorID = "tls-monitor-\(UUID().uuidString.prefix(8))"
            let verify = try BeaconctlProcess(
                ["verify", manifest.path, "--input", broker.url, "--required-sightings", "10", "--timeout", "120", "--format", "json"],
                environment: readerEnvironment(verifyID))
            let monitor = try BeaconctlProcess(
                ["monitor", "--input", broker.url, "--region", "shop=\(MQTTCommandTests.uuid)/1", "--format", "jsonl"],
                environment: readerEnvironment(monitorID))
            try await MQTTCommandTests.waitForSubscription(broker, clientID: verifyID)
            try await MQTTCommandTests.waitForSubscription(broker, clientID: monitorID)
            let scan = try BeaconctlProcess(
                ["scan", "--input", recording.path, "--receiver", "shop-1", "--mqtt", broker.url, "--format", "jsonl"],
                environment: Self.environment(ca: certificates.ca.certificate, client: receiver))
            #expect(await scan.waitForExit() == 0, "scan: \(scan.standardError)")
            #expect(await verify.waitForExit() == 0, "\(verify.standardOutput)\(verify.standardError)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(verify.standardOutput.utf8)) as? [String: Any])
            #expect((report["beacons"] as? [[String: Any]])?.first?["status"] as? String == "ok", "\(verify.standardOutput)")
            let enter = try await monitor.waitForLine("the enter event") { $0.contains(#""event":"enter""#) }
            #expect(enter.contains(#""region":"shop""#))
            monitor.signal(SIGTERM)
            #expect(await monitor.waitForExit() == 0, "\(monitor.standardError)")
        }
    }

    @Test("no client certificate: refused at once, saying the broker requires one and what to set", .timeLimit(.minutes(2)))
    func noClientCertificate() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recording = try Self.recording(in: folder)
        try await Self.withTLSBroker { broker, certificates in
            let scan = try BeaconctlProcess(
                ["scan", "--input", recording.path, "--receiver", "shop-1", "--mqtt", broker.url, "--format", "jsonl"],
                environment: Self.environment(ca: certificates.ca.certificate, client: nil))
            await Self.expectStoppedAtOnce(scan, saying: ["requires a client certificate", MQTTTLS.certificateFileVariable, MQTTTLS.keyFileVariable])
        }
    }

    @Test("a client certificate from a CA the broker does not trust: refused at once, saying so", .timeLimit(.minutes(2)))
    func clientCertificateFromAnotherCA() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recording = try Self.recording(in: folder)
        try await Self.withTLSBroker { broker, certificates in
            let stranger = try await certificates.client("shop-1", signedByOtherCA: true)
            let scan = try BeaconctlProcess(
                ["scan", "--input", recording.path, "--receiver", "shop-1", "--mqtt", broker.url, "--format", "jsonl"],
                environment: Self.environment(ca: certificates.ca.certificate, client: stranger))
            await Self.expectStoppedAtOnce(scan, saying: ["does not accept the client certificate", "unknown ca"])
        }
    }

    @Test("the broker's certificate signed by a CA the client does not trust: refused at once, naming the CA setting", .timeLimit(.minutes(2)))
    func untrustedBrokerCertificate() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recording = try Self.recording(in: folder)
        try await Self.withTLSBroker { broker, certificates in
            let receiver = try await certificates.client("shop-1")
            let scan = try BeaconctlProcess(
                ["scan", "--input", recording.path, "--receiver", "shop-1", "--mqtt", broker.url, "--format", "jsonl"],
                environment: Self.environment(ca: certificates.otherCA.certificate, client: receiver))
            await Self.expectStoppedAtOnce(scan, saying: ["the broker's certificate is not trusted", "by \(MQTTTLS.caFileVariable)=\(certificates.otherCA.certificate)", "set \(MQTTTLS.caFileVariable) to"])
        }
    }

    @Test("the broker's certificate names another host: refused at once, naming the host", .timeLimit(.minutes(2)))
    func hostNameMismatch() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recording = try Self.recording(in: folder)
        try await Self.withTLSBroker(forAnotherHost: true) { broker, certificates in
            let receiver = try await certificates.client("shop-1")
            let scan = try BeaconctlProcess(
                ["scan", "--input", recording.path, "--receiver", "shop-1", "--mqtt", broker.url, "--format", "jsonl"],
                environment: Self.environment(ca: certificates.ca.certificate, client: receiver))
            await Self.expectStoppedAtOnce(scan, saying: ["the broker's certificate does not name 127.0.0.1"])
        }
    }

    @Test("a reader (verify --watch) refused for TLS stops at once with exit 3 and the reason", .timeLimit(.minutes(2)))
    func readerRefusedForTLS() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = folder.appendingPathComponent("fleet.yaml")
        try MQTTCommandTests.manifest.write(to: manifest, atomically: true, encoding: .utf8)
        try await Self.withTLSBroker { broker, certificates in
            let watch = try BeaconctlProcess(
                ["verify", manifest.path, "--watch", "--input", broker.url, "--silence", "1", "--format", "jsonl"],
                environment: Self.environment(ca: certificates.ca.certificate, client: nil))
            #expect(await watch.waitForExit() == 3, "\(watch.standardError)")
            #expect(watch.standardError.contains("requires a client certificate"), "\(watch.standardError)")
            #expect(!watch.standardError.contains("reconnecting"), "\(watch.standardError)")
        }
    }

    @Test("TLS files checked before connecting: a missing CA file, a key that is not the certificate's, a file that is not PEM, each named")
    func tlsFilesChecked() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let receiver = try await certificates.client("shop-1")
        // Nothing listens there: the files are refused before any connection is tried.
        let url = "mqtts://127.0.0.1:1/test"
        let missing = certificates.folder.appendingPathComponent("nope.pem").path
        let notPEM = certificates.folder.appendingPathComponent("not.pem")
        try Data([0x30, 0x82, 0x01, 0x0A]).write(to: notPEM)
        let strayKey = try await certificates.strayKey()
        let cases: [(environment: [String: String], words: [String])] = [
            (Self.environment(ca: missing, client: receiver), ["\(MQTTTLS.caFileVariable)=\(missing)", "no such file"]),
            (Self.environment(ca: certificates.ca.certificate, client: .init(certificate: receiver.certificate, key: strayKey)),
             ["\(MQTTTLS.keyFileVariable)=\(strayKey) is not the key of \(MQTTTLS.certificateFileVariable)=\(receiver.certificate)"]),
            (Self.environment(ca: notPEM.path, client: receiver), ["\(MQTTTLS.caFileVariable)=\(notPEM.path)", "not a PEM CA certificate"]),
            ([MQTTTLS.caFileVariable: certificates.ca.certificate, MQTTTLS.certificateFileVariable: receiver.certificate],
             ["\(MQTTTLS.certificateFileVariable) is set but \(MQTTTLS.keyFileVariable) is not"]),
        ]
        for (environment, words) in cases {
            let scan = try BeaconctlProcess(["scan", "--input", "/dev/null", "--mqtt", url, "--format", "jsonl"], environment: environment)
            #expect(await scan.waitForExit() == 2, "\(scan.standardError)")
            for word in words { #expect(scan.standardError.contains(word), "\(scan.standardError)") }
        }
    }

    // MARK: Authorisation, MQTT 5 and 3.1.1

    /// The publisher may write only elsewhere; the reader may read only elsewhere.
    static let denyingACL = """
        user gateway
        topic write elsewhere/#

        user audit
        topic read elsewhere/#

        """
    static let users = ["gateway": "gateway-password", "audit": "audit-password"]

    static func credentials(_ user: String, protocol version: String? = nil) -> [String: String] {
        var environment = [MQTTCredentials.usernameVariable: user, MQTTCredentials.passwordVariable: users[user] ?? ""]
        if let version { environment["BEACONCTL_MQTT_PROTOCOL"] = version }
        return environment
    }

    @Test("MQTT 5: an ACL that denies publishing: every sighting counted as refused with the reason, exit 3, nothing claimed delivered", .timeLimit(.minutes(2)))
    func publishDenied() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recording = try Self.recording(in: folder)
        try await withMosquitto(users: Self.users, acl: Self.denyingACL) { broker in
            let scan = try BeaconctlProcess(
                ["scan", "--input", recording.path, "--mqtt", broker.url, "--format", "jsonl"], environment: Self.credentials("gateway"))
            #expect(await scan.waitForExit() == 3, "\(scan.standardError)")
            #expect(scan.standardError.contains("refused 50 of the 50 sightings published"), "\(scan.standardError)")
            #expect(scan.standardError.contains("not authorized (0x87)"), "\(scan.standardError)")
            #expect(scan.standardError.contains("test/sightings/shop-1:hci0"), "\(scan.standardError)")
            #expect(!scan.standardError.contains("every one acknowledged"), "\(scan.standardError)")
            #expect(!scan.standardError.contains("did not acknowledge"), "\(scan.standardError)")
        }
    }

    @Test("MQTT 5: a broker that denies subscribing: the reader stops with exit 3, naming the topic and the reason", .timeLimit(.minutes(2)))
    func subscribeDenied() async throws {
        // Mosquitto 2.0's acl_file never refuses a subscription (it withholds the messages,
        // which no client can tell); its dynamic security plugin refuses it, as it should.
        try await withMosquitto(dynamicSecurityClients: Self.users) { broker in
            let reader = try BeaconctlProcess(["scan", "--input", broker.url, "--format", "jsonl"], environment: Self.credentials("audit"))
            #expect(await reader.waitForExit() == 3, "\(reader.standardError)")
            #expect(reader.standardError.contains("refused the subscription to test/sightings/+: not authorized (0x87)"), "\(reader.standardError)")
        }
    }

    @Test("held to MQTT 3.1.1: a denied publish is acknowledged like any, and the closing notice says authorisation cannot be confirmed", .timeLimit(.minutes(2)))
    func publishDeniedUnderMQTT311() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recording = try Self.recording(in: folder)
        try await withMosquitto(users: Self.users, acl: Self.denyingACL) { broker in
            let scan = try BeaconctlProcess(
                ["scan", "--input", recording.path, "--mqtt", broker.url, "--format", "jsonl", "--verbose"],
                environment: Self.credentials("gateway", protocol: "3.1.1"))
            #expect(await scan.waitForExit() == 0, "\(scan.standardError)")
            #expect(scan.standardError.contains("(MQTT 3.1.1)"), "the protocol in use is said: \(scan.standardError)")
            #expect(scan.standardError.contains("spoke MQTT 3.1.1"), "\(scan.standardError)")
            #expect(scan.standardError.contains("cannot be confirmed"), "\(scan.standardError)")
            // The broker's own log shows what 3.1.1 could not: it dropped every one.
            #expect(broker.logTail(lines: 400).contains("Denied PUBLISH from"), "\(broker.logTail())")
        }
    }

    @Test("held to MQTT 3.1.1: a denied subscription is still an error naming the topic (SUBACK failure 0x80)", .timeLimit(.minutes(2)))
    func subscribeDeniedUnderMQTT311() async throws {
        try await withMosquitto(dynamicSecurityClients: Self.users) { broker in
            let reader = try BeaconctlProcess(
                ["scan", "--input", broker.url, "--format", "jsonl"], environment: Self.credentials("audit", protocol: "3.1.1"))
            #expect(await reader.waitForExit() == 3, "\(reader.standardError)")
            #expect(reader.standardError.contains("refused the subscription to test/sightings/+: failure (0x80"), "\(reader.standardError)")
        }
    }

    @Test("BEACONCTL_MQTT_PROTOCOL takes 5 or 3.1.1 and names itself otherwise")
    func protocolSetting() async throws {
        let scan = try BeaconctlProcess(
            ["scan", "--input", "/dev/null", "--mqtt", "mqtt://127.0.0.1:1/test"], environment: ["BEACONCTL_MQTT_PROTOCOL": "4"])
        #expect(await scan.waitForExit() == 2)
        #expect(scan.standardError.contains("BEACONCTL_MQTT_PROTOCOL=4"), "\(scan.standardError)")
    }
}
