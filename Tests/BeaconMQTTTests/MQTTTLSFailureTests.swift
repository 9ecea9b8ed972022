import Testing

@testable import BeaconMQTT

/// OpenSSL's words, as libmosquitto logs them, told apart: which TLS failures are
/// permanent, and what each one tells the operator to set.
@Suite("TLS failures classified from OpenSSL's words")
struct MQTTTLSFailureTests {
    static func classify(_ reason: String, verdict: (code: Int, text: String)? = nil, hasClientCertificate: Bool = true) -> MQTTTLSFailure? {
        MQTTTLSFailure.classify(
            logLine: "OpenSSL Error[0]: error:0A000000:SSL routines::\(reason)", verdict: verdict, hasClientCertificate: hasClientCertificate)
    }

    @Test("each kind of failure from its OpenSSL reason or verdict")
    func kinds() {
        #expect(Self.classify("tlsv13 alert certificate required") == .clientCertificateRequired)
        #expect(Self.classify("sslv3 alert handshake failure", hasClientCertificate: false) == .clientCertificateRequired)
        #expect(Self.classify("tlsv1 alert unknown ca") == .clientCertificateRejected(alert: "tlsv1 alert unknown ca"))
        #expect(Self.classify("sslv3 alert certificate expired") == .clientCertificateExpired)
        #expect(Self.classify("certificate verify failed", verdict: (20, "unable to get local issuer certificate"))
            == .brokerCertificateUntrusted(verdict: "unable to get local issuer certificate"))
        #expect(Self.classify("certificate verify failed", verdict: (10, "certificate has expired")) == .brokerCertificateExpired(verdict: "certificate has expired"))
        #expect(Self.classify("certificate verify failed", verdict: (62, "hostname mismatch")) == .hostNameMismatch)
        #expect(MQTTTLSFailure.classify(logLine: "Error: host name verification failed.", verdict: nil, hasClientCertificate: true) == .hostNameMismatch)
        #expect(Self.classify("unsupported protocol") == .protocolVersion(reason: "unsupported protocol"))
        #expect(Self.classify("wrong version number") == .protocolVersion(reason: "wrong version number"))
        #expect(Self.classify("unexpected eof while reading") == .other(reason: "unexpected eof while reading"))
        #expect(MQTTTLSFailure.classify(logLine: "Client x sending CONNECT", verdict: nil, hasClientCertificate: true) == nil)
    }

    @Test("only an unrecognised failure is retried; each explanation says what to set")
    func explanations() throws {
        let broker = try MQTTBrokerURL(parsing: "mqtts://broker.example/chain")
        let tls = MQTTTLS(caFile: "/etc/beaconctl/ca.crt", certificateFile: "/etc/beaconctl/box.crt", keyFile: "/etc/beaconctl/box.key")
        #expect(!MQTTTLSFailure.other(reason: "unexpected eof while reading").isPermanent)
        #expect(MQTTTLSFailure.hostNameMismatch.isPermanent)
        #expect(MQTTTLSFailure.clientCertificateRequired.explanation(broker: broker, tls: tls).contains("set BEACONCTL_MQTT_CERT_FILE and BEACONCTL_MQTT_KEY_FILE"))
        #expect(MQTTTLSFailure.hostNameMismatch.explanation(broker: broker, tls: tls).contains("does not name broker.example"))
        #expect(MQTTTLSFailure.brokerCertificateUntrusted(verdict: "self-signed certificate").explanation(broker: broker, tls: tls)
            .contains("by BEACONCTL_MQTT_CA_FILE=/etc/beaconctl/ca.crt: set BEACONCTL_MQTT_CA_FILE to the CA certificate that signed the broker's"))
        #expect(MQTTTLSFailure.protocolVersion(reason: "wrong version number").explanation(broker: broker, tls: tls).contains("broker.example:8883"))
    }
}
