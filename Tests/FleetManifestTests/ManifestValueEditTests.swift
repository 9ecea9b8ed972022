import BeaconCore
import Foundation
import Testing

@testable import FleetManifest

@Suite("Editing one value of a manifest in place")
struct ManifestValueEditTests {
    static let manifest = """
        # Jay's Donuts — calibrated 2024-05-01
        version: 1
        fleet: jays
        uuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3   # the fleet UUID
        defaults:
          measured_power: auto
        venues:
          - id: cupertino
            major: 1
            beacons:
              - id: door      # by the entrance
                minor: 1
                measured_power: -59   # measured with a phone
              - id: till
                minor: 2
                # no measured_power yet
                tx_power: -4
              - {id: back, minor: 3}
              - id: automatic
                minor: 4
                measured_power: auto

        """

    func location(of id: String, in text: String, file: String = "fleet.yaml") throws -> FleetManifest.SourceLocation {
        let result = ManifestLoader.load(sources: [(name: file, bytes: Array(text.utf8))])
        try #require(result.errorCount == 0, "\(result.diagnostics)")
        return try #require(result.fleet.beacons.first { $0.id == id }).location
    }

    func edit(_ id: String, to value: Int8, in text: String) throws -> String {
        let edited = try ManifestValueEdit.settingMeasuredPower(value, ofBeaconAt: try location(of: id, in: text), in: Array(text.utf8))
        return String(decoding: edited, as: UTF8.self)
    }

    @Test("an existing value: only the number changes, the comment after it stays")
    func replacesTheNumber() throws {
        let edited = try edit("door", to: -63, in: Self.manifest)
        #expect(edited == Self.manifest.replacingOccurrences(of: "measured_power: -59   #", with: "measured_power: -63   #"))
    }

    @Test("`auto` is replaced by the number")
    func replacesAuto() throws {
        let edited = try edit("automatic", to: -60, in: Self.manifest)
        #expect(edited == Self.manifest.replacingOccurrences(of: "    measured_power: auto", with: "    measured_power: -60"))
    }

    @Test("no key: one line inserted after the first key, indented like the beacon's keys")
    func insertsALine() throws {
        let edited = try edit("till", to: -58, in: Self.manifest)
        #expect(edited == Self.manifest.replacingOccurrences(
            of: "      - id: till\n", with: "      - id: till\n        measured_power: -58\n"))
        let reloaded = ManifestLoader.load(sources: [(name: "fleet.yaml", bytes: Array(edited.utf8))])
        #expect(reloaded.errorCount == 0)
        #expect(reloaded.fleet.beacons.first { $0.id == "till" }?.measuredPower == .dBm(-58))
    }

    @Test("a flow mapping gets `, measured_power: N` after its first value")
    func insertsIntoAFlowMapping() throws {
        let edited = try edit("back", to: -70, in: Self.manifest)
        #expect(edited == Self.manifest.replacingOccurrences(of: "{id: back, minor: 3}", with: "{id: back, measured_power: -70, minor: 3}"))
    }

    @Test("CRLF files get a CRLF line; the first key decides where the line goes")
    func lineBreaks() throws {
        let crlf = Self.manifest.replacingOccurrences(of: "\n", with: "\r\n")
        let edited = try edit("till", to: -58, in: crlf)
        #expect(edited == crlf.replacingOccurrences(of: "      - id: till\r\n", with: "      - id: till\r\n        measured_power: -58\r\n"))

        let lastLine = "version: 1\nfleet: f\nuuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3\nvenues:\n  - id: v\n    major: 1\n    beacons:\n      - {minor: 1, id: b}\n      - minor: 2\n        id: c"
        let appended = try edit("c", to: -55, in: lastLine)
        #expect(appended == lastLine.replacingOccurrences(of: "      - minor: 2\n", with: "      - minor: 2\n        measured_power: -55\n"))
    }

    @Test("a byte-order mark before a manifest written on one line: the marks of line 1 count from after it")
    func byteOrderMarkOnTheBeaconsLine() throws {
        let oneLine = "\u{FEFF}{version: 1, fleet: f, uuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3, venues: [{id: v, major: 1, beacons: [{id: b, minor: 1}, {id: c, minor: 2, measured_power: -59}]}]}\n"
        #expect(try edit("b", to: -61, in: oneLine) == oneLine.replacingOccurrences(of: "{id: b, minor: 1}", with: "{id: b, measured_power: -61, minor: 1}"))
        #expect(try edit("c", to: -62, in: oneLine) == oneLine.replacingOccurrences(of: "measured_power: -59", with: "measured_power: -62"))
    }

    @Test("a location where no beacon mapping starts is refused")
    func wrongLocation() {
        let error = #expect(throws: ManifestEditError.self) {
            _ = try ManifestValueEdit.settingMeasuredPower(
                -59, ofBeaconAt: FleetManifest.SourceLocation(file: "fleet.yaml", line: 3, column: 1), in: Array(Self.manifest.utf8))
        }
        #expect(error?.description.hasPrefix("fleet.yaml: no beacon mapping starts at line 3, column 1") == true)
    }

    @Test("writing: the file keeps its permissions, validates, and only the value changed")
    func writesInPlace() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/fleet.yaml"
        try Self.manifest.write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o640)
        try ManifestValueEdit.writeMeasuredPower(-57, beaconID: "door", namespace: [path])
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written == Self.manifest.replacingOccurrences(of: "measured_power: -59", with: "measured_power: -57"))
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o7777 == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["fleet.yaml"])

        let missing = #expect(throws: ManifestEditError.self) {
            try ManifestValueEdit.writeMeasuredPower(-57, beaconID: "nowhere", namespace: [path])
        }
        #expect(missing?.message == "has no beacon `nowhere`")
    }

    @Test("mac: quoted, added to a block mapping and to a flow mapping, read back as the address; comments kept")
    func setsTheAddress() throws {
        let address = try #require(BluetoothAddress("F0:4C:0A:00:00:31"))
        let block = try ManifestValueEdit.settingAddress(address, ofBeaconAt: try location(of: "till", in: Self.manifest), in: Array(Self.manifest.utf8))
        let blockText = String(decoding: block, as: UTF8.self)
        #expect(blockText == Self.manifest.replacingOccurrences(of: "      - id: till\n", with: "      - id: till\n        mac: \"F0:4C:0A:00:00:31\"\n"))
        let flow = try ManifestValueEdit.settingAddress(address, ofBeaconAt: try location(of: "back", in: Self.manifest), in: Array(Self.manifest.utf8))
        let flowText = String(decoding: flow, as: UTF8.self)
        #expect(flowText == Self.manifest.replacingOccurrences(of: "{id: back, minor: 3}", with: "{id: back, mac: \"F0:4C:0A:00:00:31\", minor: 3}"))
        for text in [blockText, flowText] {
            let reloaded = ManifestLoader.load(sources: [(name: "fleet.yaml", bytes: Array(text.utf8))])
            #expect(reloaded.errorCount == 0, "\(reloaded.diagnostics)")
            #expect(reloaded.fleet.beacons.filter { $0.expectedAddress == address }.count == 1)
        }
        // An address already there is replaced where it stands.
        let again = try ManifestValueEdit.settingAddress(
            try #require(BluetoothAddress("F0:4C:0A:00:00:32")), ofBeaconAt: try location(of: "back", in: flowText), in: flow)
        #expect(String(decoding: again, as: UTF8.self) == flowText.replacingOccurrences(of: "00:31", with: "00:32"))
    }

    @Test("writeAddress replaces the file in place with only that beacon's mac: changed")
    func writesTheAddress() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/fleet.yaml"
        try Self.manifest.write(toFile: path, atomically: false, encoding: .utf8)
        let loaded = ManifestLoader.load(paths: [path], keepingSnapshots: true)
        let address = try #require(BluetoothAddress("F0:4C:0A:00:00:31"))
        try ManifestValueEdit.writeAddress(address, beaconID: "door", in: loaded)
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written.contains("# by the entrance") && written.contains("# the fleet UUID"))
        let reloaded = ManifestLoader.load(paths: [path])
        #expect(reloaded.fleet.beacons.first { $0.id == "door" }?.expectedAddress == address)
        #expect(reloaded.fleet.beacons.filter { $0.expectedAddress != nil }.count == 1)
    }

    @Test("a file changed since it was read is not replaced")
    func refusesAConcurrentChange() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/fleet.yaml"
        try "old\n".write(toFile: path, atomically: false, encoding: .utf8)
        let snapshot = try ManifestFileReplacement.read(path)
        try "version: 1\n".write(toFile: path, atomically: false, encoding: .utf8)
        let error = #expect(throws: ManifestEditError.self) {
            try ManifestValueEdit.replaceAtomically(snapshot, with: Array("new\n".utf8))
        }
        #expect(error?.message.hasPrefix("changed on disk") == true)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "version: 1\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["fleet.yaml"])
    }
}

/// A fresh folder under the system's temporary folder, removed when the value goes away.
final class TemporaryFolder {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "manifest-edit-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
