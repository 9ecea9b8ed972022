import BeaconCore
import Testing

@testable import FleetManifest

/// Hosts, positions and expected addresses: what a deployment can get wrong.
@Suite struct DeploymentTests {
    @Test func hostOverCapacityWarnsAtTheFirstBeaconBeyondTheBudget() throws {
        let result = expectDiagnostics(MarkedFixture(header + """
            max_beacons_per_host: 2
            defaults:
              host: pi-1
            venues:
              - id: v
                major: 1
                beacons:
                  - id: a
                    minor: 1
                  - id: b
                    minor: 2
                  - ⟨host-over-capacity⟩id: c
                    minor: 3
                  - id: d
                    minor: 4
                  - id: elsewhere
                    minor: 5
                    host: pi-2
            """))
        let warning = try diagnostic("host-over-capacity", in: result)
        #expect(warning.message == "host `pi-1` is assigned 4 beacons but its controller can advertise 2 at once; from beacon `c` on, beacons would stay off the air")
        #expect(result.fleet.beacons.count == 5, "over capacity is a warning: the beacons stay")
    }

    @Test func hostBudgetFromOptionsAndAcrossFiles() {
        // No manifest value: the options' budget applies. Both files put beacons on pi-1.
        let first = MarkedFixture(header + """
            venues:
              - id: v1
                major: 1
                host: pi-1
                beacons:
                  - id: a
                    minor: 1
            """)
        let second = MarkedFixture(header + """
            venues:
              - id: v2
                major: 2
                host: pi-1
                beacons:
                  - id: b
                    minor: 1
                  - ⟨host-over-capacity⟩id: c
                    minor: 2
            """)
        expectDiagnostics([("a.yaml", first), ("b.yaml", second)], options: ValidationOptions(maxBeaconsPerHost: 2))
    }

    @Test func budgetMustBeAPlausibleNumberOfAdvertisingSets() {
        expectDiagnostics(MarkedFixture(header + "max_beacons_per_host: ⟨value-out-of-range⟩0\n"))
        expectDiagnostics(MarkedFixture(header + "max_beacons_per_host: ⟨value-out-of-range⟩241\n"))
    }

    @Test func positionsOutsideThePlan() throws {
        let result = expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: v
                major: 1
                plan: {width: 24, height: 16}
                beacons:
                  - id: inside
                    minor: 1
                    position: [24, 16]
                  - id: outside
                    minor: 2
                    position: ⟨position-outside-plan⟩[24.5, 3]
                  - id: negative
                    minor: 3
                    position: ⟨position-outside-plan⟩[-1, 3]
              - id: no-plan
                major: 2
                beacons:
                  - id: anywhere
                    minor: 1
                    position: [1000, 1000]
                  - id: negative-anyway
                    minor: 2
                    position: ⟨position-outside-plan⟩[1, -0.5]
            """))
        let messages = result.diagnostics.map(\.message)
        #expect(messages[0] == "beacon `outside` at (24.5, 3) is outside the plan of venue `v`, which is 24 × 16 m")
        #expect(messages[2] == "beacon `negative-anyway` is at negative coordinates (1, -0.5)")
        #expect(result.fleet.beacons.count == 5)
    }

    /// The reader settles a position on a plan it has already read; one read before its
    /// venue's plan (YAML keeps no order) is judged once the plan is known, the same way.
    @Test func positionsBeforeThePlanAreJudgedByIt() throws {
        let result = expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: v
                major: 1
                beacons:
                  - id: inside
                    minor: 1
                    position: [24, 16]
                  - id: outside
                    minor: 2
                    position: ⟨position-outside-plan⟩[24.5, 3]
                plan: {width: 24, height: 16}
              - id: invalid-plan
                major: 2
                plan: {width: ⟨value-out-of-range⟩0, height: 16}
                beacons:
                  - id: on-no-plan
                    minor: 1
                    position: [1000, 1000]
                  - id: negative-on-no-plan
                    minor: 2
                    position: ⟨position-outside-plan⟩[-1, 2]
            """))
        let messages = result.diagnostics.filter { $0.code == "position-outside-plan" }.map(\.message)
        #expect(messages == [
            "beacon `outside` at (24.5, 3) is outside the plan of venue `v`, which is 24 × 16 m",
            "beacon `negative-on-no-plan` is at negative coordinates (-1, 2)",
        ])
    }

    @Test func planSizesMustBePositive() {
        expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: v
                major: 1
                plan: {width: ⟨value-out-of-range⟩0, height: ⟨value-out-of-range⟩-3}
              - id: w
                major: 2
                ⟨#plan⟩plan: ⟨missing-field⟩{width: 3}
            """))
    }

    @Test(arguments: [
        ("aa:bb:cc:dd:ee:ff", nil),
        ("AA-BB-CC-DD-EE-FF", "octets are separated by '-'; write them with ':' (AA:BB:CC:DD:EE:FF)"),
        ("AA:BB:CC:DD:EE", "an address has 6 octets separated by ':' (AA:BB:CC:DD:EE:FF); this has 5"),
        ("AA:BB:CC:DD:EE:FG", "octet 6 is `FG`; each octet is two hexadecimal digits"),
        ("AA:BB:CC:DD:EE:F", "octet 6 is `F`; each octet is two hexadecimal digits"),
    ] as [(String, String?)])
    func expectedAddresses(_ value: String, problem: String?) throws {
        let result = expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: v
                major: 1
                beacons:
                  - id: b
                    minor: 1
                    mac: ⟨\(problem == nil ? "" : "invalid-mac")⟩"\(value)"
            """))
        if let problem {
            #expect(try diagnostic("invalid-mac", in: result).message == "`mac` `\(value)` is not a Bluetooth address: \(problem)")
        } else {
            #expect(result.fleet.beacons.first?.expectedAddress?.description == "AA:BB:CC:DD:EE:FF")
        }
    }

    @Test func duplicateAddressesPointAtTheValues() throws {
        let fixture = MarkedFixture(header + """
            venues:
              - id: v
                major: 1
                beacons:
                  - id: a
                    minor: 1
                    mac: ⟨#first⟩AA:BB:CC:DD:EE:FF
                  - id: b
                    minor: 2
                    mac: ⟨duplicate-mac⟩aa:bb:cc:dd:ee:ff
            """)
        let result = expectDiagnostics(fixture)
        let found = try diagnostic("duplicate-mac", in: result)
        #expect(found.message == "beacon `b` expects address AA:BB:CC:DD:EE:FF, already expected for beacon `a`")
        #expect(found.notes.first?.location == fixture.location("first"))
        #expect(result.fleet.beacons.map(\.id) == ["a"])
    }

    @Test func addressesReadInEitherCaseAndWriteUpperCase() {
        #expect(BluetoothAddress.parse("dc:a6:32:0f:00:01") == .success(BluetoothAddress(truncating: 0xDCA6_320F_0001)))
        #expect(BluetoothAddress.parse("DC:A6:32:0F:00") == .failure(.wrongOctetCount(5)))
        #expect(BluetoothAddress(utf8: "dc:a6:32:0f:00:01".utf8)?.value == 0xDCA6_320F_0001)
        #expect(BluetoothAddress(value: 0xDCA6_320F_0001)?.description == "DC:A6:32:0F:00:01")
    }

    @Test func addressesSetThroughTheAPIRoundTrip() {
        var beacon = ResolvedBeacon(
            id: "b", venueID: "v", fleetName: "f",
            identity: BeaconIdentity(uuid: ProximityUUID(high: 1, low: 2), major: 1, minor: 1),
            expectedAddress: BluetoothAddress("AA:BB:CC:DD:EE:FF"),
            location: FleetManifest.SourceLocation(file: "f.yaml", line: 1, column: 1))
        #expect(beacon.expectedAddress?.description == "AA:BB:CC:DD:EE:FF")
        beacon.expectedAddress = BluetoothAddress("00:11:22:33:44:55")
        #expect(beacon.expectedAddress?.description == "00:11:22:33:44:55")
        beacon.expectedAddress = nil
        #expect(beacon.expectedAddress == nil)
    }
}
