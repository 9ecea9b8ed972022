import BeaconCore
import Testing

@testable import BeaconFleet

/// Battery fields of the gateways beaconctl reads: Theengs Decoder's `volt` (V), `batt` (%)
/// and `tempc` (°C) as Theengs Gateway and OpenMQTTGateway publish them (fields from
/// theengs/decoder src/devices/KKM_K6P_json.h, BC08_json.h and OpenMQTTGateway's list of
/// decoded devices: Eddystone TLM "temperature/count/volt/time"), and beaconctl's own
/// telemetry lines.
@Suite("Gateways' battery fields to telemetry readings")
struct GatewayTelemetryTests {
    typealias F = GatewayFixtures
    static let arrival = GatewayDecoderTests.arrival

    static func read(_ kind: GatewayKind, _ message: F.Message) -> (GatewayReading, GatewayTelemetry) {
        var telemetry = GatewayTelemetry()
        let reading = kind.decoder.read(
            topic: message.topic, payload: message.bytes, base: kind.decoder.defaultBase, arrivalTime: arrival, telemetry: &telemetry)
        return (reading, telemetry)
    }

    /// A KKM K6P's sensor frame as Theengs Gateway publishes it (`volt` = mV / 1000).
    static let theengsKKM = F.Message(
        topic: "home/TheengsGateway/BTtoMQTT/DD330A102030",
        payload: #"{"id": "DD:33:0A:10:20:30", "rssi": -66, "brand": "KKM", "model": "Long Range K6P", "model_id": "K6P", "type": "THB", "tempc": 22.5, "hum": 40, "volt": 2.987}"#)
    /// An Eddystone-TLM frame as OpenMQTTGateway publishes it.
    static let omgTLM = F.Message(
        topic: "home/OpenMQTTGateway/BTtoMQTT/dd330a102031",
        payload: #"{"id":"dd:33:0a:10:20:31","mac_type":1,"rssi":-70,"brand":"GENERIC","model":"TLM","model_id":"TLM","tempc":19.25,"count":12345,"volt":3.1,"time":1000}"#)
    /// A battery with no address at all.
    static let noAddress = F.Message(
        topic: "home/TheengsGateway/BTtoMQTT/unknown",
        payload: #"{"rssi": -66, "brand": "KKM", "model_id": "K6P", "volt": 2.9}"#)

    @Test("Theengs Gateway and OpenMQTTGateway: volt in volts, batt in percent, tempc beside them, on the arrival's Unix time")
    func batteryFields() throws {
        let (kkm, kkmTelemetry) = Self.read(.theengs, Self.theengsKKM)
        #expect(kkm == .ignored, "not an iBeacon: no sighting")
        #expect(kkmTelemetry.readings == [TelemetryReading(
            address: BluetoothAddress("DD:33:0A:10:20:30"), addressIsRandom: false, batteryMillivolts: 2987, temperature: 22.5,
            time: Self.arrival, clock: .unix, receiver: "TheengsGateway (theengs)", source: .gateway)])
        let (_, tlm) = Self.read(.openMQTTGateway, Self.omgTLM)
        #expect(tlm.readings.map(\.batteryMillivolts) == [3100])
        #expect(tlm.readings.map(\.addressIsRandom) == [true])
        #expect(tlm.readings.map(\.receiver) == ["OpenMQTTGateway (openmqttgateway)"])
        let (_, thermometer) = Self.read(.theengs, F.theengsSensor)
        #expect(thermometer.readings.map(\.batteryPercent) == [90])
        #expect(thermometer.readings.map(\.batteryMillivolts) == [3010])
    }

    @Test("an iBeacon report's volt is its measured power, never a battery; a battery without an address is counted")
    func notBatteries() throws {
        let (iBeacon, iBeaconTelemetry) = Self.read(.theengs, F.theengsVolt)
        guard case .sightings(let sightings) = iBeacon else {
            Issue.record("\(iBeacon)")
            return
        }
        #expect(sightings.map(\.advertisement.measuredPower) == [59])
        #expect(iBeaconTelemetry == GatewayTelemetry())
        let (_, orphan) = Self.read(.theengs, Self.noAddress)
        #expect(orphan.readings.isEmpty)
        #expect(orphan.withoutBeacon == 1)
        #expect(orphan.firstWithoutBeaconReason == #"TheengsGateway (theengs) reported a battery without the device's address ("id" or "mac")"#)
        // Values no battery has are not taken.
        let odd = F.Message(topic: Self.theengsKKM.topic, payload: #"{"id": "DD:33:0A:10:20:30", "batt": 140, "volt": -1}"#)
        #expect(Self.read(.theengs, odd).1 == GatewayTelemetry())
    }

    @Test("beaconctl's batches: telemetry lines beside sightings, each kept; a bad telemetry line is an unreadable line")
    func beaconctlBatches() throws {
        let sighting = #"{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":2,"measured_power":-59,"address":"C4:5B:BE:00:00:01","rssi":-60,"time":1790000000.5,"receiver":"box"}"#
        let telemetry = #"{"telemetry":1,"source":"eddystone-tlm","address":"C4:5B:BE:00:00:01","battery_mv":2990,"time":1790000000.25,"receiver":"box"}"#
        let payload = Array([sighting, telemetry, #"{"telemetry":1,"source":"kkm"}"#].joined(separator: "\n").utf8)
        var found = GatewayTelemetry()
        let reading = BeaconCtlGatewayDecoder.read(
            topic: "beaconctl/sightings/box", payload: payload, base: "beaconctl", arrivalTime: Self.arrival, telemetry: &found)
        guard case .partlyReadable(let sightings, let unreadable, _) = reading else {
            Issue.record("\(reading)")
            return
        }
        #expect(sightings.count == 1 && unreadable == 1)
        #expect(found.readings.map(\.batteryMillivolts) == [2990])
        #expect(found.readings.map(\.clock) == [.unix], "a line without a clock is on the broker's Unix time")
        #expect(found.readings.map(\.address) == sightings.map(\.address))
    }
}
