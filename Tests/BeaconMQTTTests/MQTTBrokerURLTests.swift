import Testing

@testable import BeaconMQTT

/// `--mqtt URL` as a person (or a hostile script) writes it: what is accepted, printed back,
/// and what is refused with the reason.
@Suite("Broker URLs")
struct MQTTBrokerURLTests {
    @Test("defaults: port by scheme, prefix beaconctl")
    func defaults() throws {
        let plain = try MQTTBrokerURL(parsing: "mqtt://broker.local")
        #expect(plain == MQTTBrokerURL(host: "broker.local", port: 1883, usesTLS: false, topicPrefix: "beaconctl"))
        #expect(plain.description == "mqtt://broker.local:1883/beaconctl")
        let secure = try MQTTBrokerURL(parsing: "mqtts://broker.local/")
        #expect(secure.port == 8883)
        #expect(secure.usesTLS)
        #expect(secure.topicPrefix == "beaconctl")
        #expect(try MQTTBrokerURL(parsing: "mqtt://broker.local", defaultPrefix: "watch").topicPrefix == "watch")
    }

    @Test("port, nested prefix, trailing slashes, IPv6 literals")
    func accepted() throws {
        let nested = try MQTTBrokerURL(parsing: "mqtt://10.0.0.2:1884/venues/north///")
        #expect(nested.host == "10.0.0.2")
        #expect(nested.port == 1884)
        #expect(nested.topicPrefix == "venues/north")
        let v6 = try MQTTBrokerURL(parsing: "mqtts://[::1]:8884/fleet")
        #expect(v6.host == "::1")
        #expect(v6.port == 8884)
        #expect(v6.description == "mqtts://[::1]:8884/fleet")
        #expect(try MQTTBrokerURL(parsing: "mqtt://[fe80::1%eth0]/x").host == "fe80::1%eth0")
        #expect(try MQTTBrokerURL(parsing: "mqtt://h:65535/x").port == 65535)
        #expect(try MQTTBrokerURL(parsing: "mqtt://h:1/x").port == 1)
    }

    @Test("a printed URL parses back to itself")
    func roundTrip() throws {
        for text in ["mqtt://broker.local:1883/beaconctl", "mqtts://[::1]:8883/a/b", "mqtt://10.1.2.3:2000/x"] {
            let url = try MQTTBrokerURL(parsing: text)
            #expect(url.description == text)
            #expect(try MQTTBrokerURL(parsing: url.description) == url)
        }
    }

    static let refused: [(String, String)] = [
        ("http://broker.local/x", "it must start with mqtt:// (or mqtts:// for TLS)"),
        ("broker.local", "it must start with mqtt://"),
        ("", "it must start with mqtt://"),
        ("mqtt://", "no broker host name"),
        ("mqtt:///beaconctl", "no broker host name"),
        ("mqtt://:1883/x", "no broker host name"),
        ("mqtt://h:0/x", "the port `0` is not a number from 1 to 65535"),
        ("mqtt://h:65536/x", "the port `65536` is not a number from 1 to 65535"),
        ("mqtt://h:99999999999999999999999/x", "is not a number from 1 to 65535"),
        ("mqtt://h:abc/x", "the port `abc` is not a number from 1 to 65535"),
        ("mqtt://h:/x", "the port `` is not a number from 1 to 65535"),
        ("mqtt://h:+1883/x", "the port `+1883` is not a number"),
        ("mqtt://h:-1/x", "the port `-1` is not a number"),
        ("mqtt://[::1/x", "an IPv6 address needs its closing ]"),
        ("mqtt://[::1]1883/x", "unexpected `1883` after the IPv6 address"),
        ("mqtt://[::1]:0/x", "the port `0` is not a number"),
        ("mqtt://::1/x", "an IPv6 address goes in brackets"),
        ("mqtt://fe80::1:1883/x", "an IPv6 address goes in brackets"),
        ("mqtt://bro ker/x", "contains a space or control character"),
        ("mqtt://bro\tker/x", "contains a space or control character"),
        ("mqtt://bro\u{0}ker/x", "contains a space or control character"),
        ("mqtt://h/fleet/+", "must not contain the wildcards + or #"),
        ("mqtt://h/fleet/#", "must not contain the wildcards + or #"),
        ("mqtt://h/a+b", "must not contain the wildcards + or #"),
        ("mqtt://h/fle\u{0}et", "the topic prefix contains a control character"),
        ("mqtt://h/fleet\n", "the topic prefix contains a control character"),
        ("mqtt://h/$SYS", "must not start with $"),
    ]

    @Test("hostile and mistaken URLs are refused, each with its reason", arguments: 0..<refused.count)
    func refusals(index: Int) {
        let (text, reason) = Self.refused[index]
        let error = #expect(throws: MQTTError.self) { try MQTTBrokerURL(parsing: text) }
        guard case .invalidURL(let url, let why)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(url == text)
        #expect(why.contains(reason), "\(why)")
        #expect(error?.description.hasPrefix("\(text): not a broker URL: ") == true)
    }

    @Test("credentials in the URL are refused, pointing to the environment and the credentials file")
    func credentialsInTheURL() {
        for text in ["mqtt://user:secret@broker.local/x", "mqtt://user@broker.local", "mqtts://a:b@[::1]:8883/x"] {
            let error = #expect(throws: MQTTError.self) { try MQTTBrokerURL(parsing: text) }
            let words = error?.description ?? ""
            #expect(words.contains("credentials do not go in the URL"), "\(words)")
            #expect(words.contains("BEACONCTL_MQTT_USERNAME and BEACONCTL_MQTT_PASSWORD"), "\(words)")
            #expect(words.contains("BEACONCTL_MQTT_CREDENTIALS"), "\(words)")
            #expect(!words.contains("--mqtt-credentials"), "\(words)")
        }
        // An @ in the topic prefix is not a credential.
        #expect((try? MQTTBrokerURL(parsing: "mqtt://broker.local/team@north"))?.topicPrefix == "team@north")
    }

    @Test("only mqtt:// and mqtts:// look like brokers")
    func looksLikeBroker() {
        #expect(MQTTBrokerURL.looksLikeBroker("mqtt://h"))
        #expect(MQTTBrokerURL.looksLikeBroker("mqtts://h"))
        #expect(!MQTTBrokerURL.looksLikeBroker("sightings.jsonl"))
        #expect(!MQTTBrokerURL.looksLikeBroker("MQTT://h"))
    }
}
