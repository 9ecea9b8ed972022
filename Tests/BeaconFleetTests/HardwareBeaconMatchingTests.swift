import BeaconCore
import BeaconProfiles
import FleetManifest
import HCI
import Testing

@testable import BeaconFleet

/// Which heard peripheral each battery beacon is: by mac:, or `--assign nearest`.
@Suite("Matching battery beacons to what was heard")
struct HardwareBeaconMatchingTests {
    static let manifest = """
        version: 1
        fleet: match
        uuid: 04F6CBA0-321A-40F4-BDE2-A613959BBF4B
        venues:
          - id: shop
            major: 1
            beacons:
              - {id: door, minor: 1, mac: "F0:00:00:00:00:01"}
              - {id: till, minor: 2, mac: "F0:00:00:00:00:02"}
              - {id: back, minor: 3, mac: "F0:00:00:00:00:03"}
              - {id: shelf, minor: 4}
              - {id: window, minor: 5}
              - {id: cellar, minor: 6}
          - id: office
            major: 2
            host: pi-office
            beacons:
              - {id: desk, minor: 1}
        """

    static let kkm = ADStructure(type: ADStructure.manufacturerSpecificType, data: [0x53, 0x0A, 0x22, 0x00])

    static func heard(_ last: UInt8, connectable: Bool, rssi: Int?, kkm: Bool = true) -> DiscoveredPeripheral {
        DiscoveredPeripheral(
            address: BluetoothAddress(bytes: [0xF0, 0, 0, 0, 0, last]) ?? .zero, addressType: .random, connectable: connectable,
            strongestRSSI: rssi, structures: kkm ? [Self.kkm] : [])
    }

    func fleet() throws -> Fleet { try loadFleet(["fleet.yaml": Self.manifest]) }

    @Test("by mac: heard connectably, heard but not connectable, not heard; no mac: without --assign is unmatched")
    func byAddress() throws {
        let fleet = try fleet()
        let request = HardwareProvisioningRequest(fleet: fleet, password: .init("x"))
        let beacons = try request.selectedBeacons()
        #expect(beacons.map(\.id) == ["door", "till", "back", "shelf", "window", "cellar"], "a hosted beacon is not a battery beacon")
        let matches = HardwareBeaconMatching.match(
            beacons, fleet: fleet, heard: [Self.heard(1, connectable: true, rssi: -70), Self.heard(2, connectable: false, rssi: -40)],
            assignNearest: false, profile: .auto)
        guard case .pinned(let door, let peripheral) = matches[0] else {
            Issue.record("\(matches[0])")
            return
        }
        #expect(door.id == "door" && peripheral.address.description == "F0:00:00:00:00:01")
        guard case .unreachable(_, let notConnectable) = matches[1], case .unreachable(_, let notHeard) = matches[2] else {
            Issue.record("\(matches)")
            return
        }
        #expect(notConnectable.contains("not advertising connectably"))
        #expect(notHeard.contains("was not heard"))
        for match in matches[3...] {
            guard case .unmatched(_, let why) = match else {
                Issue.record("\(match)")
                continue
            }
            #expect(why.contains("--assign nearest"))
        }
    }

    @Test("--assign nearest: strongest first, one each, never a pinned address, a non-connectable one or one naming no profile")
    func assignNearest() throws {
        let fleet = try fleet()
        let beacons = try HardwareProvisioningRequest(fleet: fleet, password: .init("x")).selectedBeacons()
        let heard = [
            Self.heard(3, connectable: true, rssi: -20),  // back's own address: never proposed for another
            Self.heard(10, connectable: true, rssi: -60),
            Self.heard(11, connectable: true, rssi: -45),
            Self.heard(12, connectable: false, rssi: -30),
            Self.heard(13, connectable: true, rssi: -25, kkm: false),  // a phone, say: no profile in its advertisement
        ]
        let matches = HardwareBeaconMatching.match(beacons, fleet: fleet, heard: heard, assignNearest: true, profile: .auto)
        let proposed = matches.compactMap { match -> String? in
            if case .proposed(let beacon, let peripheral) = match { return "\(beacon.id)=\(peripheral.address)" }
            return nil
        }
        #expect(proposed == ["shelf=F0:00:00:00:00:0B", "window=F0:00:00:00:00:0A"])
        guard case .unmatched(let cellar, let why) = matches[5] else {
            Issue.record("\(matches[5])")
            return
        }
        #expect(cellar.id == "cellar" && why.contains("no unassigned connectable beacon"))

        // A profile named on the command line takes any connectable one.
        let named = HardwareBeaconMatching.match(beacons, fleet: fleet, heard: heard, assignNearest: true, profile: .kbeacon)
        guard case .proposed(let shelf, let strongest) = named[3] else {
            Issue.record("\(named[3])")
            return
        }
        #expect(shelf.id == "shelf" && strongest.address.description == "F0:00:00:00:00:0D")
    }

    /// A connectable KBeacon at F0:00:00:00:00:`last` advertising `minor` of the fleet's UUID, major 1.
    static func advertising(_ last: UInt8, minor: UInt16, rssi: Int) throws -> DiscoveredPeripheral {
        let uuid = try ProximityUUID(parsing: "04F6CBA0-321A-40F4-BDE2-A613959BBF4B")
        let frame = IBeaconAdvertisement(identity: BeaconIdentity(uuid: uuid, major: 1, minor: minor), measuredPower: -59)
        var peripheral = Self.heard(last, connectable: true, rssi: rssi)
        peripheral.note(connectable: true, rssi: nil, structures: try AdvertisingData.parse(frame.advertisingData).get())
        return peripheral
    }

    @Test("--assign nearest never gives a beacon advertising another manifest beacon's identity a second one; one advertising this beacon's own identity is taken first")
    func assignNeverDuplicatesAnIdentity() throws {
        let fleet = try fleet()
        let beacons = try HardwareProvisioningRequest(fleet: fleet, password: .init("x")).selectedBeacons()
        let heard = [
            try Self.advertising(20, minor: 2, rssi: -30),  // till's identity, though till's mac: is :02: a stray duplicate
            try Self.advertising(21, minor: 5, rssi: -70),  // window's own identity: provisioned before, its mac: not recorded
            try Self.advertising(22, minor: 99, rssi: -50),  // an identity the manifest does not know
            Self.heard(23, connectable: true, rssi: -60),
        ]
        let matches = HardwareBeaconMatching.match(beacons, fleet: fleet, heard: heard, assignNearest: true, profile: .auto)
        let proposed = matches.compactMap { match -> String? in
            if case .proposed(let beacon, let peripheral) = match { return "\(beacon.id)=\(peripheral.address)" }
            return nil
        }
        #expect(proposed == ["shelf=F0:00:00:00:00:16", "window=F0:00:00:00:00:15", "cellar=F0:00:00:00:00:17"])

        // Only the one carrying till's identity is left: said, and not proposed.
        let alone = HardwareBeaconMatching.match(
            beacons, fleet: fleet, heard: [heard[0]], assignNearest: true, profile: .auto)
        guard case .unmatched(let shelf, let why) = alone[3] else {
            Issue.record("\(alone[3])")
            return
        }
        #expect(shelf.id == "shelf")
        #expect(why.contains("F0:00:00:00:00:14 (till)") && why.contains("add its address as mac:"), "\(why)")
    }

    @Test("selection: a venue, beacons by id; a hosted beacon or an unknown id is a usage error naming what to do")
    func selection() throws {
        let fleet = try fleet()
        let some = HardwareProvisioningRequest(fleet: fleet, beaconIDs: ["till", "door"], password: .init("x"))
        #expect(try some.selectedBeacons().map(\.id) == ["door", "till"])
        #expect(throws: HardwareProvisioningError.usage("`desk` is advertised by host pi-office, not a battery beacon: provision it with `beaconctl provision --host pi-office`")) {
            try HardwareProvisioningRequest(fleet: fleet, beaconIDs: ["desk"], password: .init("x")).selectedBeacons()
        }
        #expect(throws: HardwareProvisioningError.usage("the manifest has no battery beacons (beacons without host:) in venue office to provision")) {
            try HardwareProvisioningRequest(fleet: fleet, venueID: "office", password: .init("x")).selectedBeacons()
        }
        #expect(throws: HardwareProvisioningError.self) {
            try HardwareProvisioningRequest(fleet: fleet, venueID: "attic", password: .init("x")).selectedBeacons()
        }
    }

    @Test("the target: identity, transmit power and interval; measured power unless auto (the beacon's own is kept)")
    func target() throws {
        let fleet = try loadFleet([
            "fleet.yaml": Self.manifest.replacingOccurrences(of: "{id: door, minor: 1,", with: "{id: door, minor: 1, measured_power: -61, tx_power: -4, interval_ms: 350,")
        ])
        let door = try #require(fleet.beacons.first { $0.id == "door" })
        let shelf = try #require(fleet.beacons.first { $0.id == "shelf" })
        #expect(HardwareProvisioningRequest.target(for: door) == BeaconSettings(identity: door.identity, measuredPower: -61, txPower: -4, advertisingInterval: 350))
        #expect(HardwareProvisioningRequest.target(for: shelf).measuredPower == nil)
    }

    @Test("what a discovery report says: connectability kept once seen, strongest RSSI, the structures bounded")
    func discoveredPeripheral() {
        var peripheral = Self.heard(1, connectable: false, rssi: nil, kkm: false)
        peripheral.note(connectable: true, rssi: -70, structures: [Self.kkm])
        peripheral.note(connectable: false, rssi: -80, structures: [Self.kkm])
        #expect(peripheral.connectable && peripheral.strongestRSSI == -70 && peripheral.structures == [Self.kkm])
        #expect(peripheral.advertisedProfile == .kbeacon)
        for byte in 0..<100 { peripheral.note(connectable: false, rssi: nil, structures: [ADStructure(type: 0x09, data: [UInt8(byte)])]) }
        #expect(peripheral.structures.count == 64)
    }
}
