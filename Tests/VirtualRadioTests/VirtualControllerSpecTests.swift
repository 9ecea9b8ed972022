import BeaconCore
import HCI
import Testing

@testable import VirtualRadio

@Suite("virtual:SCENARIO grammar and named airs", .timeLimit(.minutes(1)))
struct VirtualControllerSpecTests {
    @Test("the forms of the scenario text", arguments: [
        (nil, VirtualControllerSpec()),
        ("lab", VirtualControllerSpec(airName: "lab")),
        ("lab@2.5,-3", VirtualControllerSpec(airName: "lab", point: PlanPoint(x: 2.5, y: -3))),
        ("@4,5", VirtualControllerSpec(point: PlanPoint(x: 4, y: 5))),
        ("default/cupertino/tour", VirtualControllerSpec(placeName: "cupertino/tour")),
        ("fleet.v2/cupertino@3,12", VirtualControllerSpec(airName: "fleet.v2", placeName: "cupertino", point: PlanPoint(x: 3, y: 12))),
        // An "@" not followed by coordinates belongs to the place name.
        ("lab/desk@window", VirtualControllerSpec(airName: "lab", placeName: "desk@window")),
        // Options after the scenario: they never take a coordinate's comma.
        ("lab,battery-beacons=3", VirtualControllerSpec(airName: "lab", batteryBeacons: 3)),
        ("lab@1,2,battery-beacons=64", VirtualControllerSpec(airName: "lab", point: PlanPoint(x: 1, y: 2), batteryBeacons: 64)),
        (",battery-beacons=1", VirtualControllerSpec(batteryBeacons: 1)),
        ("lab,eddystone-beacons=2", VirtualControllerSpec(airName: "lab", eddystoneBeacons: 2)),
        ("lab,battery-beacons=1,eddystone-beacons=1,battery=40",
         VirtualControllerSpec(airName: "lab", batteryBeacons: 1, eddystoneBeacons: 1, batteryPercent: 40)),
        // Options in any order; a percent sign is allowed.
        ("lab@1,2,battery=0%,eddystone-beacons=64",
         VirtualControllerSpec(airName: "lab", point: PlanPoint(x: 1, y: 2), eddystoneBeacons: 64, batteryPercent: 0)),
    ] as [(String?, VirtualControllerSpec)])
    func parsing(text: String?, expected: VirtualControllerSpec) throws {
        let spec = try VirtualControllerSpec(parsing: text)
        #expect(spec == expected)
        // The description parses back to the same value.
        #expect(try VirtualControllerSpec(parsing: spec.description) == spec)
    }

    @Test("texts that are not a scenario, with a message naming the problem", arguments: [
        ("lab/", "name a place after \"/\""),
        ("/desk", "name the air before the place"),
        ("my lab", "is not an air name"),
        ("lab@1", "is not an air name"),
        ("@", "\"@\" is not an air name"),
        ("lab@1,x", "\"lab@1,x\" is not an air name"),
        ("lab,battery-beacons=0", "battery-beacons takes a count from 1 to 64, not \"0\""),
        ("lab,battery-beacons=many", "not \"many\""),
        ("lab,beacons=3", "unknown option \"beacons\"; the virtual radio knows battery-beacons=N (KBeacons), eddystone-beacons=N"),
        ("lab,eddystone-beacons=65", "eddystone-beacons takes a count from 1 to 64, not \"65\""),
        ("lab,eddystone-beacons=+2", "not \"+2\""),
        ("lab,eddystone-beacons=", "not \"\""),
        ("lab,battery-beacons=1,battery=101", "battery takes a percentage from 0 to 100, not \"101\""),
        ("lab,battery-beacons=1,battery=-5", "not \"-5\""),
        ("lab,battery-beacons=1,battery=half", "not \"half\""),
        ("lab,battery=50", "battery= sets the simulated beacons' level, and none is asked for; add battery-beacons=N or eddystone-beacons=N"),
        ("lab,battery-beacons=1,battery-beacons=2", "the option \"battery-beacons\" is given twice"),
    ])
    func rejected(text: String, message: String) {
        #expect {
            _ = try VirtualControllerSpec(parsing: text)
        } throws: { error in
            (error as? VirtualRadioError)?.message.contains(message) == true
        }
    }

    @Test("controllers opened on one named air share it; places and points position them")
    func openingOnNamedAirs() async throws {
        let air = VirtualAir(name: "spec-open-\(UInt32.random(in: 0...UInt32.max))")
        VirtualAirRegistry.register(air)
        defer { VirtualAirRegistry.remove(named: air.name) }
        air.definePlace("desk", .point(PlanPoint(x: 1, y: 2)))
        air.definePlace("shop", VirtualPlace(motion: .fixed(PlanPoint(x: 110, y: 8)), planOrigin: PlanPoint(x: 100, y: 0)))
        air.definePlace("old", VirtualPlace(motion: .origin, supportsExtendedAdvertising: false))

        let atDesk = try VirtualAirRegistry.openController(try VirtualControllerSpec(parsing: "\(air.name)/desk"), transportName: "a")
        let inShop = try VirtualAirRegistry.openController(try VirtualControllerSpec(parsing: "\(air.name)/shop@3,4"), transportName: "b")
        let atPoint = try VirtualAirRegistry.openController(try VirtualControllerSpec(parsing: "\(air.name)@7,7"), transportName: "c")
        let old = try VirtualAirRegistry.openController(try VirtualControllerSpec(parsing: "\(air.name)/old"), transportName: "d")
        #expect(atDesk.air === air && inShop.air === air)
        #expect(air.position(of: atDesk.controller) == PlanPoint(x: 1, y: 2))
        #expect(air.position(of: inShop.controller) == PlanPoint(x: 103, y: 4))
        #expect(air.position(of: atPoint.controller) == PlanPoint(x: 7, y: 7))
        #expect(atDesk.name == "a")

        // The virtual controller answers at once: the timeout is a safety net only (as `TestHost`).
        let oldHost = HostController(transport: old, defaultTimeout: .seconds(60))
        #expect(try await oldHost.send(LEReadLocalSupportedFeatures()) == [])

        #expect {
            _ = try VirtualAirRegistry.openController(try VirtualControllerSpec(parsing: "\(air.name)/nowhere"), transportName: "e")
        } throws: { error in
            (error as? VirtualRadioError)?.message == "e: the air \"\(air.name)\" has no place \"nowhere\"; its places are: desk, old, shop"
        }
        #expect {
            _ = try VirtualAirRegistry.openController(try VirtualControllerSpec(parsing: "\(air.name)/desk@1,1"), transportName: "f")
        } throws: { error in
            (error as? VirtualRadioError)?.message.hasPrefix("f: the place \"desk\" is not a plan") == true
        }
        await oldHost.close()
    }

    @Test("an air nobody registered is created on first use, in real time")
    func airCreatedOnDemand() throws {
        let name = "on-demand-\(UInt32.random(in: 0...UInt32.max))"
        defer { VirtualAirRegistry.remove(named: name) }
        #expect(VirtualAirRegistry.air(named: name) == nil)
        let transport = try VirtualAirRegistry.openController(try VirtualControllerSpec(parsing: name), transportName: "virtual:\(name)")
        let air = try #require(VirtualAirRegistry.air(named: name))
        #expect(transport.air === air)
        #expect(air.configuration == .live)
        air.shutdown()
    }
}
