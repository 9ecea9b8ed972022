import Foundation
import Testing

@testable import FleetManifest

#if canImport(Glibc)
import Glibc
#endif

/// Links met while walking a fleet folder: nothing is skipped in silence, nothing outside
/// the folder is pulled in, no loop hangs and no file is read twice.
@Suite("Walking a fleet folder with links")
struct FolderWalkTests {
    /// A temporary folder holding `fleets/` and whatever lies around it.
    final class Tree {
        let base: String
        var fleets: String { base + "/fleets" }

        init() throws {
            base = NSTemporaryDirectory() + "fleet-walk-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: base + "/fleets", withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(atPath: base) }

        /// A manifest with one venue and one beacon, at `path` under the base folder.
        func manifest(_ path: String, venue: String, major: Int) throws {
            let url = URL(fileURLWithPath: base + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let text = header + "venues:\n  - id: \(venue)\n    major: \(major)\n    beacons:\n      - {id: \(venue)-1, minor: 1}\n"
            try text.write(to: url, atomically: false, encoding: .utf8)
        }

        func link(_ path: String, to target: String) throws {
            try #require(symlink(target, base + "/" + path) == 0, "symlink \(path) -> \(target): errno \(errno)")
        }

        func load(_ paths: [String]? = nil) -> ManifestLoadResult {
            ManifestLoader.load(paths: paths ?? [fleets])
        }
    }

    private func rendered(_ result: ManifestLoadResult) -> [String] { result.diagnostics.map(\.rendered) }

    @Test("a dangling *.yaml link is an error naming it and where it points; other dangling links are no manifests")
    func danglingLink() throws {
        let tree = try Tree()
        try tree.manifest("fleets/a.yaml", venue: "a", major: 1)
        try tree.link("fleets/gone.yaml", to: "../archive/gone.yaml")
        try tree.link("fleets/gone.yml", to: "gone.yml")
        try tree.link("fleets/notes.txt", to: "nowhere.txt")
        let result = tree.load()
        let gone = tree.fleets + "/gone.yaml"
        let loop = tree.fleets + "/gone.yml"
        #expect(rendered(result) == [
            "\(gone): error[unreadable-input]: `\(gone)` is a symbolic link to `../archive/gone.yaml`, which does not exist (a dangling link)\n  hint: point the link at an existing manifest (`ln -sfn TARGET \(gone)`) or remove it",
            "\(loop): error[unreadable-input]: `\(loop)` is a symbolic link to `gone.yml` that leads back to itself (a loop of links)\n  hint: point the link at an existing manifest or remove it",
        ])
        #expect(result.unreadableInputs == [gone, loop])
        #expect(result.fleet.venues.map(\.id) == ["a"], "the rest of the folder is still loaded")

        // Named on the command line, it says the same.
        let named = tree.load([gone])
        #expect(named.diagnostics.map(\.message) == ["`\(gone)` is a symbolic link to `../archive/gone.yaml`, which does not exist (a dangling link)"])
    }

    @Test("`parent -> ..` is reported and not followed: nothing from around the folder is loaded")
    func parentLink() throws {
        let tree = try Tree()
        try tree.manifest("fleets/a.yaml", venue: "a", major: 1)
        // Unrelated manifests beside the fleet folder, which the link would reach.
        try tree.manifest("unrelated.yaml", venue: "unrelated", major: 2)
        try tree.manifest("other/b.yaml", venue: "other", major: 3)
        try tree.link("fleets/parent", to: "..")
        let result = tree.load()
        let parent = tree.fleets + "/parent"
        let real = try #require(ManifestFiles.realPath(tree.base))
        #expect(rendered(result) == [
            "\(parent): warning[link-not-followed]: `\(parent)` links to `\(real)`, a folder that contains the link itself; it was not followed (it would walk the folders around the fleet, or loop)\n  hint: remove the link: a fleet folder is one namespace, and links that lead back up are never followed",
        ])
        #expect(result.fleet.files == [tree.fleets + "/a.yaml"])
        #expect(result.errorCount == 0)
    }

    @Test("links that loop inside the folder end the walk, each file once")
    func loopsInside() throws {
        let tree = try Tree()
        try tree.manifest("fleets/a.yaml", venue: "a", major: 1)
        try tree.manifest("fleets/sub/b.yaml", venue: "b", major: 2)
        try tree.link("fleets/sub/up", to: "..")
        try tree.link("fleets/sub/here", to: ".")
        try FileManager.default.createDirectory(atPath: tree.fleets + "/sub/deeper", withIntermediateDirectories: true)
        try tree.link("fleets/sub/deeper/root", to: "../../../fleets")
        let result = tree.load()
        #expect(result.fleet.files == [tree.fleets + "/a.yaml", tree.fleets + "/sub/b.yaml"])
        #expect(result.diagnostics.map(\.code) == ["link-not-followed", "link-not-followed", "link-not-followed"])
        #expect(result.diagnostics.map(\.location.file) == ["deeper/root", "here", "up"].map { tree.fleets + "/sub/" + $0 })
        #expect(result.diagnostics.allSatisfy { $0.severity == .warning })
    }

    @Test("a linked folder outside the folder is reported, with the way to load it")
    func outsideLink() throws {
        let tree = try Tree()
        try tree.manifest("fleets/a.yaml", venue: "a", major: 1)
        try tree.manifest("shared/s.yaml", venue: "s", major: 2)
        try tree.link("fleets/shared", to: "../shared")
        let result = tree.load()
        let shared = tree.fleets + "/shared"
        let real = try #require(ManifestFiles.realPath(tree.base))
        #expect(rendered(result) == [
            "\(shared): warning[link-not-followed]: `\(shared)` links to `\(real)/shared`, outside the folder `\(real)/fleets` being loaded; it was not followed\n  hint: to load those manifests with this folder, name `\(real)/shared` on the command line as well, or move them inside",
        ])
        #expect(result.fleet.venues.map(\.id) == ["a"])
        // Named as the hint says, both load, the shared file once.
        let both = tree.load([tree.fleets, tree.base + "/shared"])
        #expect(both.fleet.venues.map(\.id).sorted() == ["a", "s"])
    }

    @Test("links inside the folder: followed, and a file reached twice is read once, by its own path")
    func insideLinks() throws {
        let tree = try Tree()
        try tree.manifest("fleets/sub/b.yaml", venue: "b", major: 2)
        try tree.manifest("fleets/.hidden/c.yaml", venue: "c", major: 3)
        // `alias` sorts before `sub` and leads to it; `copy.yaml` is `sub/b.yaml` again.
        try tree.link("fleets/alias", to: "sub")
        try tree.link("fleets/copy.yaml", to: "sub/b.yaml")
        // A folder reached only through a link is walked through it.
        try tree.link("fleets/visible", to: ".hidden")
        let result = tree.load()
        #expect(result.diagnostics.isEmpty, "\(rendered(result))")
        #expect(result.fleet.files == [tree.fleets + "/sub/b.yaml", tree.fleets + "/visible/c.yaml"])
        #expect(result.fleet.venues.map(\.id) == ["b", "c"])
    }
}
