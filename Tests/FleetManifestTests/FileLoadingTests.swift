import Foundation
import Testing

@testable import FleetManifest

/// `load(paths:)`: files, folders, and paths that cannot be read.
@Suite struct FileLoadingTests {
    /// A fresh temporary folder with `files` (relative path → text), removed afterwards.
    private func withFolder(_ files: [String: String], _ body: (URL) throws -> Void) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        try body(root)
    }

    private func venue(_ id: String, major: Int, beacon: String) -> String {
        header + "venues:\n  - id: \(id)\n    major: \(major)\n    beacons:\n      - {id: \(beacon), minor: 1}\n"
    }

    @Test func aFolderIsEveryManifestInsideSortedAndRecursive() throws {
        try withFolder([
            "b.yaml": venue("b", major: 2, beacon: "b1"),
            "a.yml": venue("a", major: 1, beacon: "a1"),
            "sub/c.yaml": venue("c", major: 3, beacon: "c1"),
            "notes.txt": "not a manifest",
            ".hidden.yaml": "not: read",
            ".git/config.yaml": "not: read",
        ]) { root in
            let result = ManifestLoader.load(paths: [root.path])
            #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.rendered))")
            #expect(result.fleet.files.map { URL(fileURLWithPath: $0).lastPathComponent } == ["a.yml", "b.yaml", "c.yaml"])
            #expect(result.fleet.venues.map(\.id) == ["a", "b", "c"])
            #expect(result.unreadableInputs.isEmpty)
        }
    }

    @Test func filesInDifferentFilesShareOneNamespace() throws {
        try withFolder([
            "a.yaml": venue("a", major: 1, beacon: "same"),
            "b.yaml": venue("b", major: 1, beacon: "same"),
        ]) { root in
            let result = ManifestLoader.load(paths: [root.path])
            #expect(result.diagnostics.map(\.code).sorted() == ["duplicate-id", "duplicate-identity"])
            #expect(result.diagnostics.allSatisfy { $0.location.file.hasSuffix("/b.yaml") })
        }
    }

    @Test func theSameFileTwiceIsReadOnce() throws {
        try withFolder(["a.yaml": venue("a", major: 1, beacon: "a1")]) { root in
            let file = root.appendingPathComponent("a.yaml").path
            let result = ManifestLoader.load(paths: [file, root.path])
            #expect(result.diagnostics.isEmpty)
            #expect(result.fleet.files == [file])
        }
    }

    @Test func unreadablePaths() throws {
        try withFolder(["empty/readme.txt": "nothing here", "a.yaml": venue("a", major: 1, beacon: "a1")]) { root in
            let missing = root.appendingPathComponent("missing.yaml").path
            let empty = root.appendingPathComponent("empty").path
            let good = root.appendingPathComponent("a.yaml").path
            let result = ManifestLoader.load(paths: [missing, empty, good])
            #expect(result.unreadableInputs == [missing, empty])
            #expect(result.fleet.beacons.count == 1, "readable files are still loaded")
            let messages = result.diagnostics.map(\.rendered)
            #expect(messages.contains("\(missing): error[unreadable-input]: cannot read `\(missing)`: No such file or directory\n  hint: check the path and its permissions"))
            #expect(messages.contains("\(empty): error[unreadable-input]: folder `\(empty)` holds no .yaml or .yml file\n  hint: check the path and its permissions"))
        }
    }

    @Test func aFileOverTheLimitIsNotRead() throws {
        try withFolder(["big.yaml": header + String(repeating: "# padding\n", count: 1000)]) { root in
            let result = ManifestLoader.load(paths: [root.path], options: ValidationOptions(maxFileBytes: 1000))
            #expect(result.diagnostics.map(\.code) == ["file-too-large"])
            #expect(result.unreadableInputs.isEmpty)
        }
    }

    @Test func loadsTheFixtureFolder() throws {
        let folder = try #require(Bundle.module.url(forResource: "fleet-folder", withExtension: nil, subdirectory: "Fixtures"))
        let result = ManifestLoader.load(paths: [folder.path])
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.rendered))")
        // Sorted by path: asia/japan.yaml, fleet.yaml, us.yaml.
        #expect(result.fleet.venues.map(\.id) == ["kyoto", "cupertino", "soho"])
        #expect(result.fleet.beacons.count == 7)
        #expect(Set(result.fleet.beacons.map(\.fleetName)) == ["jays-donuts"])
        #expect(result.fleet.regions.map(\.region.identifier) == ["any-jays", "cupertino-store"])
    }
}
