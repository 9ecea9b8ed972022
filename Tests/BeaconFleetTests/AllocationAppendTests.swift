import BeaconCore
import FleetManifest
import Foundation
import Testing

@testable import BeaconFleet

@Suite("Appending allocations to manifests")
struct AllocationAppendTests {
    /// Plans `request` against `file` (named `name`) and inserts the result; checks that the
    /// bytes before and after the insertion are the original's, byte for byte, and that the
    /// edited file validates with every new beacon resolving as planned.
    func append(
        _ request: AllocationRequest, to file: String, name: String = "fleet.yaml"
    ) throws -> (edited: String, insertion: ManifestInsertion, plan: AllocationPlan) {
        let bytes = Array(file.utf8)
        let loaded = ManifestLoader.load(sources: [(name, bytes)])
        #expect(loaded.errorCount == 0, "\(loaded.diagnostics.map(\.rendered))")
        let fleet = loaded.fleet
        var request = request
        let declared = AllocationAppend.declarations(of: fleet.venues.first { $0.id == request.venueID }, in: bytes)
        request.declaredVenueMajor = declared.venueMajor
        request.declaredVenueUUID = declared.venueUUID
        request.declaredFleetUUID = declared.fleetUUID
        let plan = try AllocationPlanner.plan(request, in: fleet)
        let insertion = try AllocationAppend.insertion(for: plan, into: bytes, file: name, fleet: fleet)
        let edited = insertion.applied(to: bytes)
        // Untouched parts: everything before the offset, and everything after it.
        #expect(Array(edited[..<insertion.offset]) == Array(bytes[..<insertion.offset]))
        #expect(Array(edited[(insertion.offset + insertion.text.utf8.count)...]) == Array(bytes[insertion.offset...]))
        _ = try AllocationFileUpdate.validate(plan, newBytes: edited, file: name, namespaceFiles: [name])
        return (String(decoding: edited, as: UTF8.self), insertion, plan)
    }

    @Test("new beacons go after the venue's last beacon, comments and blank lines kept")
    func beaconsAfterLastBeacon() throws {
        let file = """
            # The shops.
            version: 1
            fleet: donuts
            uuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3

            venues:
              - id: store-1
                major: 1      # till number
                beacons:
                  - id: store-1-door
                    zone: entrance
                    minor: 1
                    position: [1, 2]   # by the door
                  # the till, calibrated
                  - id: store-1-till
                    zone: register
                    minor: 2

              # Store 2 opens in spring.
              - id: store-2
                major: 2
                beacons:
                  - {id: store-2-door, minor: 1}
            regions:
              - id: any
            """
        let result = try append(AllocationRequest(venueID: "store-1", groups: [.init(zone: "register", count: 1), .init(zone: "pickup", count: 1)]), to: file)
        #expect(result.edited == file.replacingOccurrences(of: """
                    minor: 2

              # Store 2
            """, with: """
                    minor: 2
                  - id: store-1-register-2
                    zone: register
                    minor: 3
                  - id: store-1-pickup
                    zone: pickup
                    minor: 4

              # Store 2
            """))
        #expect(result.insertion.line == 18)
    }

    @Test("a new venue goes after the file's last venue, set apart like the others")
    func venueAfterLastVenue() throws {
        let file = """
            version: 1
            fleet: donuts
            uuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3
            venues:
              - id: store-1
                major: 1
                beacons:
                  - id: store-1-door
                    minor: 1

              - id: store-2
                major: 2
                beacons:
                  - id: store-2-door
                    minor: 1
                    position: [0.5,
                      1.5]

            # Regions for the app.
            regions:
              - id: any

            """
        let result = try append(
            AllocationRequest(fleetName: "donuts", venueID: "store-3", plan: PlanSize(width: 10, height: 8), groups: [.init(zone: "door", count: 1)]),
            to: file)
        let newVenue = """

              - id: store-3
                major: 3
                plan: {width: 10, height: 8}
                beacons:
                  - id: store-3-door
                    zone: door
                    minor: 1

            """
        #expect(result.edited == file.replacingOccurrences(of: "1.5]\n", with: "1.5]\n" + newVenue))
    }

    @Test("the file's own indentation and line endings are followed")
    func followsLayoutAndLineEndings() throws {
        let file = "version: 1\r\nfleet: shop\r\nuuid: 04F6CBA0-321A-40F4-BDE2-A613959BBF4B\r\nvenues:\r\n- id: shop\r\n  major: 1\r\n  beacons:\r\n  -   id: door\r\n      minor: 1\r\n"
        let result = try append(AllocationRequest(venueID: "shop", groups: [.init(zone: "till", count: 1)]), to: file)
        #expect(result.edited == file + "  -   id: shop-till\r\n      zone: till\r\n      minor: 2\r\n")
        let venue = try append(AllocationRequest(fleetName: "shop", venueID: "kiosk", groups: [.init(zone: "till", count: 1)]), to: file)
        #expect(venue.edited == file + "- id: kiosk\r\n  major: 2\r\n  beacons:\r\n  -   id: kiosk-till\r\n      zone: till\r\n      minor: 1\r\n")
    }

    @Test("a file without a final newline gets one before the new text")
    func missingFinalNewline() throws {
        let file = "version: 1\nfleet: shop\nuuid: 04F6CBA0-321A-40F4-BDE2-A613959BBF4B\nvenues:\n  - id: shop\n    major: 1\n    beacons:\n      - id: door\n        minor: 1"
        let result = try append(AllocationRequest(venueID: "shop", groups: [.init(zone: nil, beaconIDs: ["till"])]), to: file)
        #expect(result.edited == file + "\n      - id: till\n        minor: 2\n")
    }

    @Test("a venue without beacons gets a beacons list, inheriting its declared major")
    func venueWithoutBeacons() throws {
        let file = """
            version: 1
            fleet: shop
            uuid: 04F6CBA0-321A-40F4-BDE2-A613959BBF4B
            venues:
              - id: shop
                major: 6   # store six
                plan: {width: 10, height: 8}
              - id: other
                major: 7
                beacons:
                  - id: other-door
                    minor: 1

            """
        let result = try append(AllocationRequest(venueID: "shop", groups: [.init(zone: "door", count: 1)]), to: file)
        #expect(result.plan.beacons.first?.identity.major == 6)
        #expect(result.edited == file.replacingOccurrences(of: "    plan: {width: 10, height: 8}\n", with: """
                plan: {width: 10, height: 8}
                beacons:
                  - id: shop-door
                    zone: door
                    minor: 1

            """))

        let emptyList = file.replacingOccurrences(of: "    plan: {width: 10, height: 8}\n", with: "    beacons:    # none yet\n    plan: {width: 10, height: 8}\n")
        let listed = try append(AllocationRequest(venueID: "shop", groups: [.init(zone: "door", count: 1)]), to: emptyList)
        #expect(listed.edited.contains("    beacons:    # none yet\n      - id: shop-door\n        zone: door\n        minor: 1\n    plan:"))
    }

    @Test("a file without venues gets a venues list")
    func fileWithoutVenues() throws {
        let file = "version: 1\nfleet: shop\nuuid: 04F6CBA0-321A-40F4-BDE2-A613959BBF4B\nregions:\n  - id: any\n"
        let namespace = try loadFleet(["a.yaml": file])
        #expect(namespace.venues.isEmpty)
        let result = try append(AllocationRequest(fleetName: "shop", venueID: "shop", groups: [.init(zone: nil, beaconIDs: ["door"])]), to: file)
        #expect(result.edited == file + "venues:\n  - id: shop\n    major: 1\n    beacons:\n      - id: door\n        minor: 1\n")
    }

    @Test("a file behind a byte-order mark: its first line is read, the mark stays first")
    func byteOrderMark() throws {
        let file = "\u{FEFF}fleet: shop\nversion: 1\nuuid: 04F6CBA0-321A-40F4-BDE2-A613959BBF4B\nvenues:\n  - id: shop\n    major: 1\n    beacons:\n      - id: door\n        minor: 1\n"
        #expect(AllocationAppend.declarations(of: nil, in: Array(file.utf8)).fleetName == "shop")
        let result = try append(AllocationRequest(venueID: "shop", groups: [.init(zone: nil, beaconIDs: ["till"])], declaredVenueMajor: 1), to: file)
        #expect(result.edited == file + "      - id: till\n        minor: 2\n")
        // Nothing but the mark: the new text goes after it.
        let empty = Array("\u{FEFF}".utf8)
        let fleet = try loadFleet(["a.yaml": "version: 1\nfleet: shop\nuuid: 04F6CBA0-321A-40F4-BDE2-A613959BBF4B\nregions:\n  - id: any\n"])
        let plan = try AllocationPlanner.plan(AllocationRequest(fleetName: "shop", venueID: "shop", groups: [.init(zone: nil, beaconIDs: ["door"])]), in: fleet)
        let insertion = try AllocationAppend.insertion(for: plan, into: empty, file: "b.yaml", fleet: fleet)
        #expect(insertion.offset == 3)
    }

    @Test("flow-style entries are not edited")
    func flowStyleRefused() throws {
        let file = "version: 1\nfleet: shop\nuuid: 04F6CBA0-321A-40F4-BDE2-A613959BBF4B\nvenues:\n  - id: shop\n    major: 1\n    beacons:\n      - {id: door, minor: 1}\n"
        let error = #expect(throws: AllocationAppendError.self) {
            try append(AllocationRequest(venueID: "shop", groups: [.init(zone: nil, beaconIDs: ["till"])]), to: file)
        }
        #expect(error == .flowStyle(what: "beacon `door`", location: SourceLocation(file: "fleet.yaml", line: 8, column: 9)))
        let emptyFlow = "version: 1\nfleet: shop\nuuid: 04F6CBA0-321A-40F4-BDE2-A613959BBF4B\nvenues:\n  - id: shop\n    major: 1\n    beacons: []\n"
        let flowError = #expect(throws: AllocationAppendError.self) {
            try append(AllocationRequest(venueID: "shop", groups: [.init(zone: nil, beaconIDs: ["till"])]), to: emptyFlow)
        }
        #expect(flowError?.description.hasPrefix("`beacons: []` at fleet.yaml:7:5 cannot take new entries in place") == true)
    }

    @Test("an edit that would not validate, or resolve as planned, is refused")
    func invalidEditsRefused() throws {
        let file = "version: 1\nfleet: shop\nuuid: 04F6CBA0-321A-40F4-BDE2-A613959BBF4B\nvenues:\n  - id: shop\n    major: 1\n    beacons:\n      - id: door\n        minor: 1\n"
        let bytes = Array(file.utf8)
        let fleet = ManifestLoader.load(sources: [("fleet.yaml", bytes)]).fleet
        let request = AllocationRequest(venueID: "shop", groups: [.init(zone: nil, beaconIDs: ["till"])], declaredVenueMajor: 1)
        var plan = try AllocationPlanner.plan(request, in: fleet)
        // A stale plan: minor 1 was free when planned, and is not any more.
        plan.beacons[0].identity.minor = 1
        let edited = try AllocationAppend.insertion(for: plan, into: bytes, file: "fleet.yaml", fleet: fleet).applied(to: bytes)
        let error = #expect(throws: AllocationWriteError.self) {
            try AllocationFileUpdate.validate(plan, newBytes: edited, file: "fleet.yaml", namespaceFiles: ["fleet.yaml"])
        }
        guard case .invalidResult(_, let diagnostics) = error else {
            Issue.record("expected invalidResult, got \(String(describing: error))")
            return
        }
        #expect(diagnostics.contains { $0.code == "duplicate-identity" })

        // A plan whose beacon would inherit another major than planned.
        var misplanned = try AllocationPlanner.plan(request, in: fleet)
        misplanned.beacons[0].identity.major = 9
        let inherited = try AllocationAppend.insertion(for: misplanned, into: bytes, file: "fleet.yaml", fleet: fleet).applied(to: bytes)
        #expect(throws: AllocationWriteError.resolvedDifferently(
            file: "fleet.yaml",
            differences: ["`till` would be 04F6CBA0-321A-40F4-BDE2-A613959BBF4B/1/2, not 04F6CBA0-321A-40F4-BDE2-A613959BBF4B/9/2"])) {
            try AllocationFileUpdate.validate(misplanned, newBytes: inherited, file: "fleet.yaml", namespaceFiles: ["fleet.yaml"])
        }
    }

    @Test("the file is replaced atomically, keeping its permissions, unless it changed meanwhile")
    func atomicWrite() throws {
        let folder = NSTemporaryDirectory() + "beaconctl-append-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/fleet.yaml"
        let original = Array("version: 1\n".utf8)
        try Data(original).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)

        let snapshot = try AllocationFileUpdate.read(path)
        #expect(snapshot.bytes == original)
        try AllocationFileUpdate.write(Array("version: 1\nfleet: x\n".utf8), replacing: snapshot)
        #expect(try AllocationFileUpdate.read(path).bytes == Array("version: 1\nfleet: x\n".utf8))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o640)

        // The snapshot is of the file before that write: it is stale now.
        #expect(throws: AllocationWriteError.changedMeanwhile(path: path)) {
            try AllocationFileUpdate.write(Array("other\n".utf8), replacing: snapshot)
        }
        #expect(try AllocationFileUpdate.read(path).bytes == Array("version: 1\nfleet: x\n".utf8))
        // No temporary file is left behind, written or refused.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["fleet.yaml"])
    }
}
