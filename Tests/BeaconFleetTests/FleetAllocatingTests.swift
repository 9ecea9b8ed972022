import BeaconCore
import FleetManifest
import Foundation
import Testing

@testable import BeaconFleet

/// `fleet plan` as a use case: the request completed from the manifests (the `--append`
/// file's fleet, what a venue's text declares), the allocation written in place, and the
/// write refused when the file changed since it was read.
struct FleetAllocatingTests {
    static let manifest = """
        version: 1
        fleet: donuts
        uuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3
        venues:
          - id: store-1
            major: 7
            beacons:
              - id: store-1-door
                minor: 1
                zone: entrance

        """

    /// A folder with the manifest in it, loaded as `fleet plan` loads a namespace.
    static func namespace() throws -> (file: String, loaded: ManifestLoadResult) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("allocating-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + "/donuts.yaml"
        try manifest.write(toFile: file, atomically: true, encoding: .utf8)
        let loaded = ManifestLoader.load(paths: [file], keepingSnapshots: true)
        #expect(loaded.errorCount == 0, "\(loaded.diagnostics.map(\.rendered))")
        return (file, loaded)
    }

    @Test("a request naming no fleet gets the --append file's; an existing venue's major is the one its text declares")
    func requestCompleted() throws {
        let (file, loaded) = try Self.namespace()
        defer { try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent) }
        let allocating = FleetAllocating(namespace: loaded, appendFile: file)
        let allocation = try allocating.plan(AllocationRequest(venueID: "store-1", groups: [.init(zone: "register", count: 2)]))
        #expect(allocation.fleetName == "donuts")
        #expect(!allocation.venue.isNew)
        #expect(allocation.beacons.map(\.identity.major) == [7, 7])
        #expect(allocation.beacons.map(\.zone) == ["register", "register"])
        #expect(allocating.existingVenue("store-1")?.id == "store-1")
        #expect(allocating.existingVenue("store-2") == nil)
    }

    @Test("appended in place: the warnings are told before the write, the line returned; a file changed since is left alone")
    func appended() throws {
        let (file, loaded) = try Self.namespace()
        defer { try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent) }
        let allocating = FleetAllocating(namespace: loaded, appendFile: file)
        let allocation = try allocating.plan(AllocationRequest(venueID: "store-1", groups: [.init(zone: nil, beaconIDs: ["store-1-till"])]))
        var told = 0
        let line = try allocating.append(allocation, into: file) { _ in told += 1 }
        #expect(told == 1)
        let text = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(text[line - 1].contains("store-1-till"))
        let reloaded = ManifestLoader.load(paths: [file])
        #expect(reloaded.errorCount == 0)
        #expect(reloaded.fleet.beacons.map(\.id).sorted() == ["store-1-door", "store-1-till"])

        // The same plan again, from the bytes read before the first write: refused.
        #expect {
            try allocating.append(allocation, into: file)
        } throws: { error in
            guard case .file(.changedMeanwhile) = error as? FleetAllocatingError else { return false }
            return true
        }
    }

    @Test("an --append file that cannot be read fails the plan with what to do")
    func unreadableAppendFile() throws {
        let (file, loaded) = try Self.namespace()
        defer { try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent) }
        let missing = (file as NSString).deletingLastPathComponent + "/missing.yaml"
        #expect {
            try FleetAllocating(namespace: loaded, appendFile: missing).plan(AllocationRequest(venueID: "store-9", groups: [.init(zone: "a", count: 1)]))
        } throws: { error in
            guard case .file(.unreadable) = error as? FleetAllocatingError else { return false }
            return true
        }
    }
}
