import FleetManifest
import Foundation
import Testing

@testable import BeaconFleet

/// `fleet import`'s writing: a file, a folder of one file per fleet, or standard output,
/// never over an existing file without `force`.
@Suite struct FleetImportingTests {
    static let shop = ImportedManifest(fleet: "shop", yaml: "version: 1\nfleet: shop\n")
    static let flat = ImportedManifest(fleet: "flat", yaml: "version: 1\nfleet: flat\n")

    static func temporaryFolder() throws -> String {
        let path = NSTemporaryDirectory() + "fleet-import-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func read(_ path: String) -> String? { FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } }

    @Test("one manifest to standard output is handed back, nothing written")
    func standardOutput() throws {
        #expect(try FleetImporting.write([Self.shop], to: .standardOutput, force: false) == Self.shop.yaml)
    }

    @Test("several fleets need a folder: to a file or standard output they are refused, naming them")
    func severalFleets() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for destination in [FleetImportDestination.standardOutput, .file(folder + "/one.yaml")] {
            #expect(throws: FleetImportError.severalFleets(["shop", "flat"])) {
                _ = try FleetImporting.write([Self.shop, Self.flat], to: destination, force: false)
            }
        }
        #expect(!FileManager.default.fileExists(atPath: folder + "/one.yaml"))
    }

    @Test("a folder gets FLEET.yaml per fleet, each told once written; the folder is made when missing")
    func folder() throws {
        let parent = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let folder = parent + "/fleets"
        var wrote: [String] = []
        #expect(try FleetImporting.write([Self.shop, Self.flat], to: .directory(folder), force: false) { wrote.append($0) } == nil)
        #expect(wrote == [folder + "/shop.yaml", folder + "/flat.yaml"])
        #expect(Self.read(folder + "/shop.yaml") == Self.shop.yaml)
        #expect(Self.read(folder + "/flat.yaml") == Self.flat.yaml)
    }

    @Test("an existing file is kept without force, in a folder before any file is written; force overwrites")
    func existingFiles() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("kept".utf8).write(to: URL(fileURLWithPath: folder + "/flat.yaml"))
        #expect(throws: FleetImportError.exists(folder + "/flat.yaml")) {
            _ = try FleetImporting.write([Self.shop, Self.flat], to: .directory(folder), force: false)
        }
        #expect(!FileManager.default.fileExists(atPath: folder + "/shop.yaml"), "nothing is written when one file is refused")
        #expect(throws: FleetImportError.exists(folder + "/flat.yaml")) {
            _ = try FleetImporting.write([Self.flat], to: .file(folder + "/flat.yaml"), force: false)
        }
        #expect(Self.read(folder + "/flat.yaml") == "kept")
        _ = try FleetImporting.write([Self.flat], to: .file(folder + "/flat.yaml"), force: true)
        #expect(Self.read(folder + "/flat.yaml") == Self.flat.yaml)
    }
}
