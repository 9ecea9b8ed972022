import BeaconCore
import BeaconFleet
import BeaconProfiles
import Foundation
import HCI
import Testing

/// `--profile auto|NAME|FILE`: the built-in names, a shipped profile by name, a profile file
/// (read, or refused with its problems), and `auto` choosing a declarative profile from the
/// advertisement only when exactly one matches.
@Suite("provision --hardware --profile")
struct HardwareProfileChoiceTests {
    static func table(_ name: String) -> String {
        """
        version: 1
        profile: \(name)
        source: a test table
        service: FFF0
        recognise: {advertised-service: FFF0, name-prefix: TEST}
        values:
          uuid: {characteristic: FFF1, encoding: uuid}
          major: {characteristic: FFF2, encoding: uint16, byte-order: big}
          minor: {characteristic: FFF3, encoding: uint16, byte-order: big}
        """
    }

    static func definition(_ name: String) throws -> ProfileDefinition {
        try ProfileDefinitionReader.read(Array(table(name).utf8), file: "shipped:\(name)").get()
    }

    static func message(_ argument: String, shipped: [ProfileDefinition] = []) -> String? {
        do throws(HardwareProvisioningError) {
            _ = try HardwareProfileChoice.resolve(argument, shipped: shipped)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("the built-in names, and a shipped profile by its name")
    func names() throws {
        #expect(try HardwareProfileChoice.resolve("auto") == .auto)
        #expect(try HardwareProfileChoice.resolve("kbeacon") == .kbeacon)
        #expect(try HardwareProfileChoice.resolve("eddystone-gatt") == .eddystoneGATT)
        let shipped = try Self.definition("acme-b1")
        #expect(try HardwareProfileChoice.resolve("acme-b1", shipped: [shipped]) == .declarative(shipped))
        #expect(
            Self.message("acme-b2", shipped: [shipped])
                == "--profile acme-b2: no such profile; the profiles are auto, kbeacon, eddystone-gatt, acme-b1, or give the path of a profile file (docs/profiles.md)")
    }

    @Test("a profile file is read; one with a problem is refused with it at its line and column; a missing one says so")
    func files() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("profile-choice-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("acme.yaml")
        try Self.table("acme-b1").write(to: good, atomically: true, encoding: .utf8)
        guard case .declarative(let definition) = try HardwareProfileChoice.resolve(good.path) else {
            Issue.record("the file was not read as a declarative profile")
            return
        }
        #expect(definition.name == "acme-b1" && definition.origin == good.path)

        let bad = folder.appendingPathComponent("bad.yaml")
        try Self.table("acme-b1").replacingOccurrences(of: "byte-order: big}\n  minor", with: "byte-order: middle}\n  minor")
            .write(to: bad, atomically: true, encoding: .utf8)
        let message = try #require(Self.message(bad.path))
        #expect(message.contains("bad.yaml:8:63: error[unknown-value]: `byte-order` is `middle`; it must be one of big, little"), "\(message)")

        let missing = try #require(Self.message(folder.appendingPathComponent("none.yaml").path))
        #expect(missing.contains("cannot open the profile file (No such file or directory): check the path"), "\(missing)")
    }

    @Test("auto takes a declarative profile from the advertisement only when exactly one matches")
    func recognition() throws {
        let one = try Self.definition("acme-b1")
        let two = try Self.definition("acme-b2")
        let peripheral = DiscoveredPeripheral(
            address: BluetoothAddress("F0:00:00:00:00:01") ?? .zero, addressType: .random, connectable: true, strongestRSSI: -60,
            structures: [ADStructure(type: 0x03, data: [0xF0, 0xFF]), ADStructure(type: 0x09, data: Array("TEST-1".utf8))])
        #expect(peripheral.advertisedProfile(among: [one]) == .declarative(one))
        #expect(peripheral.advertisedProfile(among: [one, two]) == nil)
        #expect(peripheral.advertisedProfile(among: []) == nil)
    }
}
