import BeaconCore
import HCITestKit
import Foundation
import ProcessTestKit
import Testing

@testable import FleetManifest

#if canImport(Glibc)
import Glibc
#endif

/// `ManifestFileReplacement.replace`: the file is replaced atomically and keeps its
/// identity (links, owner, mode), never over a change made since it was read, and
/// without leaving temporary files behind.
@Suite("Writing a manifest back")
struct ManifestWriteBackTests {
    static let before = Array("version: 1\nfleet: before\n".utf8)
    static let after = Array("version: 1\nfleet: after\n".utf8)

    private func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    private func contents(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private func info(_ path: String) throws -> stat {
        var info = stat()
        try #require(lstat(path, &info) == 0, "lstat \(path): errno \(errno)")
        return info
    }

    private func entries(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    @Test("a symbolic link is written through: the target gets the new text, the link stays a link")
    func symlinkKept() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/real", withIntermediateDirectories: true)
        let target = folder.path + "/real/fleet.yaml"
        let link = folder.path + "/fleet.yaml"
        try write(Self.before, to: target)
        try #require(symlink("real/fleet.yaml", link) == 0)

        let snapshot = try ManifestFileReplacement.read(link)
        try ManifestFileReplacement.replace(snapshot, with: Self.after)

        #expect(try info(link).st_mode & S_IFMT == S_IFLNK, "the link was replaced by a regular file")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "real/fleet.yaml")
        #expect(try contents(target) == Self.after)
        #expect(try entries(folder.path) == ["fleet.yaml", "real"])
        #expect(try entries(folder.path + "/real") == ["fleet.yaml"])
    }

    @Test("owner, group and permission bits survive the replacement")
    func ownerAndModeKept() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/fleet.yaml"
        try write(Self.before, to: path)
        try #require(chmod(path, 0o640) == 0)
        // As root, give the file to someone else: the new version must go back to them.
        // Otherwise the file is already someone's (ours) and must stay so.
        let owner: (uid_t, gid_t) = geteuid() == 0 ? (4242, 4343) : (geteuid(), getegid())
        if geteuid() == 0 { try #require(chown(path, owner.0, owner.1) == 0) }
        let original = try info(path)

        try ManifestFileReplacement.replace(try ManifestFileReplacement.read(path), with: Self.after)

        let replaced = try info(path)
        #expect(replaced.st_ino != original.st_ino, "not replaced by a new file (the write was not atomic)")
        #expect(replaced.st_uid == owner.0)
        #expect(replaced.st_gid == owner.1)
        #expect(replaced.st_mode & 0o7777 == 0o640)
        #expect(try contents(path) == Self.after)
    }

    @Test("a file with other hard links is refused, with every name left as it was")
    func hardLinksRefused() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/fleet.yaml"
        let other = folder.path + "/copy.yaml"
        try write(Self.before, to: path)
        try #require(link(path, other) == 0)

        let snapshot = try ManifestFileReplacement.read(path)
        let error = #expect(throws: ManifestFileError.self) {
            try ManifestFileReplacement.replace(snapshot, with: Self.after)
        }
        #expect(error?.kind == .hardLinked(links: 2))
        #expect(error?.description == "\(path) has 2 hard links (names of the same file); replacing it would leave the other 1 with the old text, so it was left unchanged: make the other names symbolic links to it (ln -sf) or remove them, then run the command again")
        #expect(try contents(path) == Self.before)
        #expect(try contents(other) == Self.before)
        #expect(try info(path).st_ino == info(other).st_ino, "the hard link was broken")
        #expect(try entries(folder.path) == ["copy.yaml", "fleet.yaml"])

        // Once the other name is a symbolic link, the write goes through and both see it.
        try #require(unlink(other) == 0 && symlink("fleet.yaml", other) == 0)
        try ManifestFileReplacement.replace(try ManifestFileReplacement.read(other), with: Self.after)
        #expect(try contents(path) == Self.after)
        #expect(try contents(other) == Self.after)
    }

    @Test("a file edited in place since it was read is refused, naming the file and saying to run again")
    func changedContentRefused() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/fleet.yaml"
        try write(Self.before, to: path)
        let snapshot = try ManifestFileReplacement.read(path)
        // Same size, same inode: only the content tells.
        let edited = Array("version: 1\nfleet: BEFORE\n".utf8)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: edited)
        try handle.close()

        let error = #expect(throws: ManifestFileError.self) {
            try ManifestFileReplacement.replace(snapshot, with: Self.after)
        }
        #expect(error?.kind == .changedMeanwhile)
        #expect(error?.description == "\(path) changed on disk since it was read (its content differs from what was read); it was left unchanged: run the command again")
        #expect(try contents(path) == edited)
        #expect(try entries(folder.path) == ["fleet.yaml"])
    }

    @Test("a file replaced by another, or removed, since it was read is refused")
    func replacedOrRemovedRefused() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/fleet.yaml"
        try write(Self.before, to: path)
        let snapshot = try ManifestFileReplacement.read(path)
        // An editor that saves by renaming: same bytes, another file.
        try write(Self.before, to: folder.path + "/saved.yaml")
        try #require(rename(folder.path + "/saved.yaml", path) == 0)
        let replaced = #expect(throws: ManifestFileError.self) {
            try ManifestFileReplacement.replace(snapshot, with: Self.after)
        }
        #expect(replaced?.kind == .changedMeanwhile)
        #expect(replaced?.reason == "another file has taken its place")

        try #require(unlink(path) == 0)
        let removed = #expect(throws: ManifestFileError.self) {
            try ManifestFileReplacement.replace(snapshot, with: Self.after)
        }
        #expect(removed?.kind == .changedMeanwhile)
        #expect(removed?.reason == "it no longer exists")
        #expect(try entries(folder.path).isEmpty)
    }

    /// A process id that no longer belongs to any process: a child that has exited and
    /// been waited for.
    private func deadProcessID() async throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        // Awaited as the kernel reports it: no blocking wait on a test thread.
        try await ChildProcessExit.run(process).wait(for: "/bin/true ending")
        // It is a zombie until waited for, and a zombie's id still answers kill(id, 0). It has
        // ended, so this wait returns at once; Foundation, waiting for it later, finds nothing.
        var status: Int32 = 0
        _ = waitpid(process.processIdentifier, &status, WNOHANG)
        return process.processIdentifier
    }

    @Test("temporary files of processes that are gone are removed by the next write-back; others stay")
    func staleTemporariesRemoved() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/fleet.yaml"
        try write(Self.before, to: path)
        let dead = try await deadProcessID()
        try #require(kill(dead, 0) != 0 && errno == ESRCH, "process \(dead) is still there")
        let stale = [
            ".fleet.yaml.beaconctl-\(dead)-123.tmp",
            // Left by a write-back of another manifest of the folder.
            ".venue-2.yml.beaconctl-\(dead)-9.tmp",
        ]
        let kept = [
            // Process 1 always exists: its write-back may be under way.
            ".fleet.yaml.beaconctl-1-77.tmp",
            // Not of our naming.
            ".fleet.yaml.swp", ".fleet.yaml.beaconctl-x-1.tmp", "notes-\(dead)-1.tmp",
        ]
        for name in stale + kept { try write([0x23], to: folder.path + "/" + name) }

        try ManifestFileReplacement.replace(try ManifestFileReplacement.read(path), with: Self.after)

        #expect(try entries(folder.path) == (kept + ["fleet.yaml"]).sorted())
        #expect(try contents(path) == Self.after)
    }

    @Test("temporary names: hidden, beside the file, naming the process; only they are recognised")
    func temporaryNames() {
        let name = ManifestFileReplacement.temporaryName(for: "fleet.yaml", pid: 4321)
        #expect(name.hasPrefix(".fleet.yaml.beaconctl-4321-") && name.hasSuffix(".tmp"))
        #expect(ManifestFileReplacement.owner(ofTemporary: name) == 4321)
        let long = ManifestFileReplacement.temporaryName(for: String(repeating: "é", count: 127) + ".yaml", pid: 7)
        #expect(long.utf8.count <= 255, "over NAME_MAX")
        #expect(ManifestFileReplacement.owner(ofTemporary: long) == 7)
        for other in ["fleet.yaml", ".fleet.yaml.tmp", ".a.beaconctl--1.tmp", ".a.beaconctl-12-.tmp", ".a.other-12-3.tmp", ".a.beaconctl-0-3.tmp", ".a.beaconctl-99999999999-3.tmp"] {
            #expect(ManifestFileReplacement.owner(ofTemporary: other) == nil, "\(other)")
        }
    }

    @Test("the snapshot kept by the loader is what the write-back checks against")
    func loaderSnapshots() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/fleet.yaml"
        try write(Self.before, to: path)
        let loaded = ManifestLoader.load(paths: [folder.path], keepingSnapshots: true)
        let snapshot = try #require(loaded.snapshots[path])
        #expect(snapshot.bytes == Self.before)
        #expect(ManifestLoader.load(paths: [folder.path]).snapshots.isEmpty, "kept without being asked")

        try write(Array("version: 1\nfleet: edited\n".utf8), to: path)
        #expect(throws: ManifestFileError.self) { try ManifestFileReplacement.replace(snapshot, with: Self.after) }
        #expect(try contents(path) == Array("version: 1\nfleet: edited\n".utf8))
    }
}

@Suite("calibrate --write works from the manifest as it was read")
struct MeasuredPowerWriteBackTests {
    static let manifest = """
        version: 1
        fleet: cal
        uuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3
        venues:
          - id: shop
            major: 1
            beacons:
              - id: door
                minor: 1

        """

    @Test("a beacon edited while it was measured: the value is not written into the new identity")
    func editedDuringMeasurement() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/fleet.yaml"
        try Self.manifest.write(toFile: path, atomically: false, encoding: .utf8)
        let loaded = ManifestLoader.load(paths: [path], keepingSnapshots: true)
        // Meanwhile someone gives the beacon another minor.
        let edited = Self.manifest.replacingOccurrences(of: "minor: 1", with: "minor: 7")
        try edited.write(toFile: path, atomically: false, encoding: .utf8)

        let error = #expect(throws: ManifestEditError.self) {
            try ManifestValueEdit.writeMeasuredPower(-61, beaconID: "door", in: loaded)
        }
        #expect(error?.description == "\(path): changed on disk since it was read (its content differs from what was read); it was left unchanged: run the command again")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == edited)
    }

    @Test("a manifest with a byte-order mark keeps it, and the value lands where it belongs")
    func byteOrderMark() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/fleet.yaml"
        let flow = "version: 1\nfleet: cal\nuuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3\nvenues: [{id: shop, major: 1, beacons: [{id: door, minor: 1}]}]\n"
        try Data([0xEF, 0xBB, 0xBF] + Array(flow.utf8)).write(to: URL(fileURLWithPath: path))
        try ManifestValueEdit.writeMeasuredPower(-61, beaconID: "door", namespace: [path])
        let written = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(written == [0xEF, 0xBB, 0xBF] + Array(flow.replacingOccurrences(of: "{id: door,", with: "{id: door, measured_power: -61,").utf8))
    }
}
