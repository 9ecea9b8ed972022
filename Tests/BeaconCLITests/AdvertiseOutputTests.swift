import BeaconCore
import BeaconFleet
import FleetManifest
import Foundation
import HCI
import Testing

@testable import BeaconCLI

@Suite("beaconctl advertise: what it prints")
struct AdvertiseOutputTests {
    static func session(family: AdvertisingFamily = .extended, rotationSlot: Duration? = nil) throws -> AdvertisingSession {
        let uuid = try ProximityUUID(parsing: "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3")
        let controller = ControllerInfo(
            name: "hci-user:0", access: .exclusive,
            version: .init(hciVersion: .v5_3, hciSubversion: 1, lmpVersion: .v5_3, companyIdentifier: 0x0002, lmpSubversion: 1),
            address: try #require(BluetoothAddress("00:1A:7D:DA:71:13")), leFeatures: [.extendedAdvertising])
        let interval = try #require(AdvertisingInterval(units: 160))
        let door = AcceptedBeacon(
            request: AdvertisingRequest(
                beaconID: "cupertino-door", identity: BeaconIdentity(uuid: uuid, major: 1, minor: 2), measuredPower: .auto,
                interval: interval, txPower: 0),
            interval: interval, txPower: -10, measuredPower: -51, address: try #require(BluetoothAddress("C7:0F:AC:E0:FB:3B")),
            addressType: .random, handle: AdvertisingHandle(rawValue: 0))
        let register = AcceptedBeacon(
            request: AdvertisingRequest(
                beaconID: nil, identity: BeaconIdentity(uuid: uuid, major: 1, minor: 10), measuredPower: .dBm(-59),
                interval: interval, txPower: 4),
            interval: interval, txPower: 4, measuredPower: -59, address: try #require(BluetoothAddress("D1:22:33:44:55:66")),
            addressType: .random, handle: AdvertisingHandle(rawValue: 1))
        return AdvertisingSession(controller: controller, family: family, beacons: [door, register], rotationSlot: rotationSlot)
    }

    @Test("the table: one aligned row per beacon, numbers to the right")
    func table() throws {
        let lines = AdvertiseEventPrinter.table(
            for: try Self.session(), style: Style(choice: .never, isTerminal: false, environment: [:]))
        #expect(lines == [
            "Advertising 2 beacons on hci-user:0: Bluetooth 5.3, Intel (0x0002), extended advertising, one set per beacon.",
            "BEACON          UUID                                  MAJOR  MINOR  INTERVAL  TX POWER  MEASURED POWER  ADDRESS                     SET",
            "cupertino-door  89D6E936-F61F-4227-BCD2-6E94C5A6B2E3      1      2    100 ms   -10 dBm  -51 dBm (auto)  C7:0F:AC:E0:FB:3B (random)    0",
            "-               89D6E936-F61F-4227-BCD2-6E94C5A6B2E3      1     10    100 ms     4 dBm         -59 dBm  D1:22:33:44:55:66 (random)    1",
        ])
    }

    @Test("a legacy rotation says how often each beacon is on the air")
    func rotationLine() throws {
        let lines = AdvertiseEventPrinter.table(
            for: try Self.session(family: .legacy, rotationSlot: .milliseconds(100)),
            style: Style(choice: .never, isTerminal: false, environment: [:]))
        #expect(lines[1] == "The 2 beacons take turns on one advertisement: each is on the air for 100 ms in every 200 ms, so its effective interval is 200 ms.")
    }

    @Test("JSON lines: one object per event, every beacon field present")
    func jsonLines() throws {
        let captured = CapturedOutput()
        let printer = AdvertiseEventPrinter(
            format: .json, console: captured.console(), style: Style(choice: .never, isTerminal: false, environment: [:]),
            errorStyle: Style(choice: .never, isTerminal: false, environment: [:]))
        printer.print(.started(try Self.session()))
        printer.print(.warning("beacon x: asked for 0 dBm, hci-user:0 chose -10 dBm"))
        printer.noteSignal("SIGTERM")
        printer.print(.stopped(.cancelled))
        let lines = captured.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(captured.error.isEmpty)
        let objects = try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.map { $0["event"] as? String } == ["started", "warning", "stopped"])
        let beacons = try #require(objects[0]["beacons"] as? [[String: Any]])
        #expect(Set(beacons[0].keys) == [
            "id", "uuid", "major", "minor", "intervalMs", "txPowerDbm", "requestedTxPowerDbm", "measuredPowerDbm",
            "measuredPowerAuto", "address", "addressType", "handle",
        ])
        #expect(beacons[0]["id"] as? String == "cupertino-door")
        #expect(beacons[1]["id"] is NSNull)
        #expect(beacons[0]["measuredPowerDbm"] as? Int == -51)
        #expect(beacons[0]["measuredPowerAuto"] as? Bool == true)
        #expect(beacons[1]["measuredPowerAuto"] as? Bool == false)
        #expect(beacons[1]["handle"] as? Int == 1)
        let controller = try #require(objects[0]["controller"] as? [String: Any])
        #expect(controller["manufacturer"] as? String == "Intel")
        #expect(controller["bluetoothVersion"] as? String == "5.3")
        #expect(objects[1]["message"] as? String == "beacon x: asked for 0 dBm, hci-user:0 chose -10 dBm")
        #expect(objects[2]["reason"] as? String == "stop-requested")
        #expect(objects[2]["signal"] as? String == "SIGTERM")
    }

    @Test("text: warnings and faults go to standard error, the table and the stop line to standard output")
    func textStreams() throws {
        let captured = CapturedOutput()
        let printer = AdvertiseEventPrinter(
            format: .text, console: captured.console(), style: Style(choice: .never, isTerminal: false, environment: [:]),
            errorStyle: Style(choice: .never, isTerminal: false, environment: [:]))
        printer.print(.started(try Self.session()))
        printer.print(.warning("something to know"))
        printer.print(.interrupted(.unsolicitedReset(controller: "hci0"), retryIn: .seconds(2)))
        printer.print(.stopped(.durationElapsed))
        #expect(captured.error == """
            warning: something to know
            off the air: hci0: the controller was reset by someone else (another program on the shared kernel socket, or the controller restarting): the beacons are off the air; restarting in 2.0 s

            """)
        #expect(captured.output.hasPrefix("Advertising 2 beacons on hci-user:0"))
        #expect(captured.output.contains("\nAdvertising until SIGINT (Ctrl-C) or SIGTERM.\n"))
        #expect(captured.output.contains("\nStopped: beacons off the air (duration elapsed) after "))
    }
}
