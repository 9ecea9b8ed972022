import Foundation
import Testing

@testable import BeaconMQTT

/// Credentials and TLS settings as they come from the environment or a file, and the words of
/// `MQTTError`: none of it needs a broker.
@Suite("Broker credentials, TLS settings and errors")
struct MQTTSettingsTests {
    // MARK: Credentials from the environment

    @Test("credentials from the environment: user name with or without a password, or none")
    func credentialsFromEnvironment() throws {
        #expect(try MQTTCredentials.fromEnvironment([:]) == nil)
        #expect(try MQTTCredentials.fromEnvironment(["BEACONCTL_MQTT_USERNAME": ""]) == nil)
        #expect(
            try MQTTCredentials.fromEnvironment(["BEACONCTL_MQTT_USERNAME": "gateway", "BEACONCTL_MQTT_PASSWORD": "pw"])
                == MQTTCredentials(username: "gateway", password: "pw"))
        #expect(
            try MQTTCredentials.fromEnvironment(["BEACONCTL_MQTT_USERNAME": "gateway"])
                == MQTTCredentials(username: "gateway", password: nil))
        let error = #expect(throws: MQTTError.self) { try MQTTCredentials.fromEnvironment(["BEACONCTL_MQTT_PASSWORD": "pw"]) }
        #expect(
            error?.description
                == "BEACONCTL_MQTT_PASSWORD is set but BEACONCTL_MQTT_USERNAME is not: a broker takes a password only with a user name")
    }

    // MARK: Credentials from a file

    /// A private folder for one test's files, removed afterwards.
    struct Folder: ~Copyable {
        let path: String
        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("mqtt-settings-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }

        func file(_ name: String, _ bytes: [UInt8], mode: Int = 0o600) throws -> String {
            let file = "\(path)/\(name)"
            #expect(FileManager.default.createFile(atPath: file, contents: Data(bytes), attributes: [.posixPermissions: mode]))
            return file
        }
    }

    @Test("a credentials file: user name, password, CRLF endings, no password")
    func credentialsFile() throws {
        let folder = try Folder()
        var warnings: [String] = []
        let both = try folder.file("both", Array("gateway\ns3cret\n".utf8))
        #expect(try MQTTCredentials.fromFile(both) { warnings.append($0) } == MQTTCredentials(username: "gateway", password: "s3cret"))
        let crlf = try folder.file("crlf", Array("gateway\r\ns3cret\r\n".utf8))
        #expect(try MQTTCredentials.fromFile(crlf) { warnings.append($0) } == MQTTCredentials(username: "gateway", password: "s3cret"))
        let userOnly = try folder.file("user", Array("gateway".utf8))
        #expect(try MQTTCredentials.fromFile(userOnly) { warnings.append($0) } == MQTTCredentials(username: "gateway", password: nil))
        #expect(warnings.isEmpty)
    }

    @Test("a credentials file others may read is used, with a warning saying how to fix it")
    func readableByOthers() throws {
        let folder = try Folder()
        let open = try folder.file("open", Array("gateway\npw\n".utf8), mode: 0o644)
        var warnings: [String] = []
        #expect(try MQTTCredentials.fromFile(open) { warnings.append($0) }.username == "gateway")
        #expect(warnings == ["\(open): the MQTT credentials can be read by other users (mode 644); chmod 600 it"])
    }

    @Test("a missing, empty, oversized or binary credentials file is refused, naming it")
    func badFiles() throws {
        let folder = try Folder()
        let cases: [(String, String)] = [
            ("\(folder.path)/missing", "cannot open the MQTT credentials: No such file or directory"),
            (try folder.file("empty", []), "the first line must be the MQTT user name (the second the password)"),
            (try folder.file("blank-first", Array("\npw\n".utf8)), "the first line must be the MQTT user name (the second the password)"),
            (try folder.file("huge", [UInt8](repeating: 0x61, count: 64 * 1024 + 1)), "larger than 64 KiB, not an MQTT credentials file"),
        ]
        for (path, words) in cases {
            let error = #expect(throws: MQTTError.self) { try MQTTCredentials.fromFile(path) { _ in } }
            #expect(error?.description == "\(path): \(words)", "\(String(describing: error))")
        }
        // Bytes that are not UTF-8 are read, not trapped on: the broker decides whether they are a user.
        let binary = try folder.file("binary", [0xFF, 0xFE, 0x0A, 0xC0])
        #expect(try MQTTCredentials.fromFile(binary) { _ in }.username == "\u{FFFD}\u{FFFD}")
    }

    // MARK: TLS settings

    @Test("TLS settings from the environment: empty values are unset, the system CAs by default")
    func tlsFromEnvironment() {
        let none = MQTTTLS.fromEnvironment([:])
        #expect(none == MQTTTLS(caFile: nil, caDirectory: "/etc/ssl/certs", certificateFile: nil, keyFile: nil))
        let empty = MQTTTLS.fromEnvironment(["BEACONCTL_MQTT_CA_FILE": "", "BEACONCTL_MQTT_CERT_FILE": ""])
        #expect(empty == none)
        let full = MQTTTLS.fromEnvironment([
            "BEACONCTL_MQTT_CA_FILE": "/etc/beaconctl/ca.crt", "BEACONCTL_MQTT_CERT_FILE": "/etc/beaconctl/box.crt",
            "BEACONCTL_MQTT_KEY_FILE": "/etc/beaconctl/box.key",
        ])
        #expect(full.caFile == "/etc/beaconctl/ca.crt")
        #expect(full.caDirectory == nil)
        #expect(full.certificateFile == "/etc/beaconctl/box.crt")
        #expect(full.keyFile == "/etc/beaconctl/box.key")
    }

    @Test("TLS files that cannot work are named before anything connects")
    func tlsFilesChecked() throws {
        let folder = try Folder()
        let notPEM = try folder.file("not.pem", [0x30, 0x82, 0x01, 0x0A])
        let cases: [(MQTTTLS, String)] = [
            (MQTTTLS(caFile: "\(folder.path)/nope.pem"), "BEACONCTL_MQTT_CA_FILE=\(folder.path)/nope.pem: cannot read the CA certificate: no such file"),
            (MQTTTLS(caDirectory: "\(folder.path)/no-folder"), "the CA folder \(folder.path)/no-folder does not exist"),
            (MQTTTLS(certificateFile: "/c.pem"), "BEACONCTL_MQTT_CERT_FILE is set but BEACONCTL_MQTT_KEY_FILE is not"),
            (MQTTTLS(keyFile: "/k.pem"), "BEACONCTL_MQTT_KEY_FILE is set but BEACONCTL_MQTT_CERT_FILE is not"),
            (MQTTTLS(caFile: notPEM), "BEACONCTL_MQTT_CA_FILE=\(notPEM)"),
        ]
        for (tls, words) in cases {
            let error = #expect(throws: MQTTError.self) { try tls.checkFiles() }
            guard case .tls(let why)? = error else {
                Issue.record("\(String(describing: error))")
                continue
            }
            #expect(why.contains(words), "\(why)")
        }
        try MQTTTLS(caDirectory: folder.path).checkFiles()
    }

    // MARK: Messages and errors

    @Test("user properties are values: equal by name and value, in order")
    func userProperties() {
        let sequence = MQTTUserProperty(name: "sequence", value: "box/1")
        #expect(sequence == MQTTUserProperty(name: "sequence", value: "box/1"))
        #expect(sequence != MQTTUserProperty(name: "sequence", value: "box/2"))
        #expect(Set([sequence, sequence]).count == 1)
        let message = MQTTMessage(topic: "t", payload: [1], retained: false, userProperties: [sequence, .init(name: "a", value: "")])
        #expect(message.userProperties.map(\.name) == ["sequence", "a"])
        #expect(MQTTMessage(topic: "t", payload: [], retained: true).userProperties.isEmpty)
    }

    @Test("each MQTTError says where and what")
    func errorWording() {
        let cases: [(MQTTError, String)] = [
            (.invalidURL("mqtt://h:0/x", "the port `0` is not a number from 1 to 65535"), "mqtt://h:0/x: not a broker URL: the port `0` is not a number from 1 to 65535"),
            (.credentials("the credentials file is empty"), "the credentials file is empty"),
            (.tls("the CA folder /x does not exist"), "the CA folder /x does not exist"),
            (.refused(broker: "mqtt://h:1883/b", reason: "bad user name or password"), "mqtt://h:1883/b refused the connection: bad user name or password"),
            (.tlsRefused(broker: "mqtts://h:8883/b", reason: "the broker requires a client certificate"), "mqtts://h:8883/b: the TLS connection failed: the broker requires a client certificate"),
            (.library("out of memory"), "out of memory"),
        ]
        for (error, words) in cases { #expect(error.description == words) }
        let subscription = MQTTError.subscriptionRefused(broker: "mqtt://h:1883/b", topic: "b/sightings/#", reason: "not authorized")
        #expect(subscription.description.hasPrefix("mqtt://h:1883/b refused the subscription to b/sightings/#: not authorized; "))
        #expect(subscription.description.contains("`topic read b/sightings/#`"))
    }
}
