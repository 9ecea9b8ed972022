import BeaconMQTT
import Logging
import Testing

@testable import BeaconFleet

/// The broker use cases' setup, without the command line and without a broker: what they
/// refuse before anything is sent, typed, and the words that go with it.
@Suite("Broker clients set up from plain values")
struct BrokerSetupTests {
    static let logger = Logger(label: "broker-setup-tests") { _ in SwiftLogNoOpLogHandler() }

    @Test("BEACONCTL_MQTT_PROTOCOL: 5 by default, 3.1.1 when asked, anything else named in the error")
    func protocolVersion() throws {
        #expect(try BrokerConnection.protocolVersion([:]) == .v5)
        #expect(try BrokerConnection.protocolVersion(["BEACONCTL_MQTT_PROTOCOL": "3.1.1"]) == .v311)
        let error = #expect(throws: BrokerSetupError.self) {
            try BrokerConnection.protocolVersion(["BEACONCTL_MQTT_PROTOCOL": "4"])
        }
        guard case .protocolVersion("4") = error else {
            Issue.record("expected the protocol version refused, got \(String(describing: error))")
            return
        }
        #expect(error?.description.hasPrefix("BEACONCTL_MQTT_PROTOCOL=4: not an MQTT version beaconctl speaks") == true)
    }

    @Test("a publisher's URL that is not a broker's is refused as the URL, before any client")
    func publisherURL() {
        let sightings = #expect(throws: BrokerSetupError.self) {
            try SightingPublishing.start(
                "http://broker.example/x", receiver: "pi-1:hci0", wallClockOffset: 0,
                environment: [:], logger: Self.logger)
        }
        guard case .url = sightings else {
            Issue.record("expected the URL refused, got \(String(describing: sightings))")
            return
        }
        let reports = #expect(throws: BrokerSetupError.self) {
            try ReportPublishing.start("http://broker.example/x", role: "monitor", what: "region events", environment: [:], logger: Self.logger)
        }
        guard case .url = reports else {
            Issue.record("expected the URL refused, got \(String(describing: reports))")
            return
        }
    }

    @Test("no broker among the inputs: no broker input")
    func noBrokers() throws {
        #expect(try BrokerInput.open([], role: "scan", environment: [:], logger: Self.logger) == nil)
    }
}
