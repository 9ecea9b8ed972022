import BeaconCore
import BeaconFleet
import BeaconProfiles
import Foundation
import Testing

@testable import BeaconCLI

/// `provision --hardware` without a radio: usage, passwords, the result table and JSON, the log.
@Suite("beaconctl provision --hardware")
struct ProvisionHardwareCommandTests {
    @Test("usage errors exit 2 and name the problem", arguments: [
        (["m.yaml", "--hardware", "--verify-hci", "hci1"], "--verify-hci is for this host's beacons"),
        (["m.yaml", "--hardware", "--once"], "--once is for this host's beacons"),
        (["m.yaml", "--hardware", "--host", "pi"], "--hardware writes battery beacons (no host:)"),
        (["m.yaml", "--hardware", "--format", "junit"], "--format with --hardware is text or json; got junit."),
        (["m.yaml", "--hardware", "--report", "r.xml"], "with --hardware use --format json or --log"),
        (["m.yaml", "--hardware", "--yes"], "--yes answers --assign's questions; add --assign nearest."),
        (["m.yaml", "--hardware", "--assign", "nearest", "--dry-run"], "--dry-run writes nothing"),
        (["m.yaml", "--hardware", "--assign", "farthest"], "farthest"),
        (["m.yaml", "--hardware", "--profile", "ibks"], "ibks"),
        (["m.yaml", "--dry-run", "--verify-hci", "hci1"], "--dry-run applies to battery beacons: add --hardware."),
        (["m.yaml", "--verify-hci", "hci1", "--password-file", "p"], "--password-file applies to battery beacons: add --hardware."),
    ])
    func usageErrors(arguments: [String], message: String) async {
        let result = await runBeaconctl(["provision"] + arguments)
        #expect(result.status == 2)
        #expect(result.error.contains(message), "\(result.error)")
    }

    @Test("--profile FILE with a problem: exit 2 before the manifest is read, the problem at its line and column")
    func brokenProfileFile() async throws {
        let scratch = try ScratchFolder()
        let profile = try scratch.write(
            "acme.yaml",
            """
            version: 1
            profile: acme
            source: doc
            service: FFF0
            values:
              uuid: {characteristic: FFF1, encoding: uuid}
              major: {characteristic: FFF2, encoding: uint16}
              minor: {characteristic: FFF3, encoding: uint16, byte-order: big}
            """)
        let result = await runBeaconctl(["provision", "missing.yaml", "--hardware", "--profile", profile])
        #expect(result.status == 2, "\(result.error)")
        #expect(result.error.contains("acme.yaml:7:43: error[missing-byte-order]: uint16 needs `byte-order: big` or `little`"), "\(result.error)")
        #expect(!result.error.contains("missing.yaml"))
    }

    @Test("--profile names what it takes when given a name it does not know")
    func unknownProfileName() async {
        let result = await runBeaconctl(["provision", "m.yaml", "--hardware", "--profile", "ibks"])
        #expect(result.status == 2)
        #expect(result.error.contains("--profile ibks: no such profile; the profiles are auto, kbeacon, eddystone-gatt"), "\(result.error)")
    }

    @Test("no password anywhere: exit 2 before a controller is opened, saying where a password goes (never the command line)")
    func noPassword() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", validManifest)
        let result = await runBeaconctl(["provision", manifest, "--hardware", "--hci", "tcp-client:127.0.0.1:9"])
        #expect(result.status == 2, "\(result.error)")
        #expect(result.error.contains("--password-file") && result.error.contains("BEACONCTL_BEACON_PASSWORD"))
        #expect(result.error.contains("never on the command line"))
    }

    @Test("an unknown --beacon is exit 2 before the controller is opened")
    func unknownBeacon() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", validManifest)
        let result = await runBeaconctl(
            ["provision", manifest, "--hardware", "--hci", "tcp-client:127.0.0.1:9", "--beacon", "attic"],
            environment: ["BEACONCTL_BEACON_PASSWORD": "secret-pass-123"])
        #expect(result.status == 2, "\(result.error)")
        #expect(result.error.contains("no battery beacon `attic` in the manifest"))
    }

    @Test("two entries pinning one address (one beacon, two identities): the manifest error, exit 1, before a controller is opened")
    func oneAddressOnTwoEntries() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write(
            "shop.yaml",
            (validManifest + "\n").replacingOccurrences(of: "minor: 1\n", with: "minor: 1\n        mac: \"F0:4C:0A:00:00:31\"\n")
                .replacingOccurrences(of: "minor: 2\n", with: "minor: 2\n        mac: \"F0:4C:0A:00:00:31\"\n"))
        // Nothing listens on port 9: had the controller been opened, this would be exit 3.
        let result = await runBeaconctl(
            ["provision", manifest, "--hardware", "--hci", "tcp-client:127.0.0.1:9"],
            environment: ["BEACONCTL_BEACON_PASSWORD": "secret-pass-123"])
        #expect(result.status == 1, "\(result.error)")
        #expect(result.error.contains("error[duplicate-mac]"), "\(result.error)")
        #expect(result.error.contains("expects address F0:4C:0A:00:00:31, already expected for beacon `door`"), "\(result.error)")
    }

    @Test("with a password, an unreachable controller is exit 3; the password shows nowhere")
    func controllerUnreachable() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", validManifest)
        let result = await runBeaconctl(
            ["provision", manifest, "--hardware", "--hci", "tcp-client:127.0.0.1:9"],
            environment: ["BEACONCTL_BEACON_PASSWORD": "secret-pass-123"])
        #expect(result.status == 3, "\(result.error)")
        #expect(!result.error.contains("secret-pass-123") && !result.output.contains("secret-pass-123"))
    }

    @Test("password sources: a file's first line (CRLF or not) before the environment; empty, missing or huge files refused")
    func passwords() throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("p.txt", "from-the-file\r\nsecond line\n")
        let environment = [ProvisionPasswords.currentVariable: "from-the-environment"]
        #expect(try ProvisionPasswords.read(file: file, variable: ProvisionPasswords.currentVariable, environment: environment, flag: "--password-file")
            == BeaconPassword("from-the-file"))
        #expect(try ProvisionPasswords.read(file: nil, variable: ProvisionPasswords.currentVariable, environment: environment, flag: "--password-file")
            == BeaconPassword("from-the-environment"))
        #expect(try ProvisionPasswords.read(file: nil, variable: ProvisionPasswords.newVariable, environment: environment, flag: "--new-password-file") == nil)
        let empty = try scratch.write("empty.txt", "\nsecond\n")
        let huge = try scratch.write("huge.txt", String(repeating: "x", count: 5000))
        for (path, words) in [(empty, "the first line is empty"), (huge, "longer than 4096 bytes"), (scratch.path + "/missing", "cannot read it")] {
            let error = #expect(throws: CommandFailure.self) {
                try ProvisionPasswords.read(file: path, variable: "X", environment: [:], flag: "--password-file")
            }
            #expect(error?.status == .usageOrInput)
            #expect(error?.message.contains(words) == true, "\(error?.message ?? "")")
        }
    }

    static let result = HardwareProvisioningResult(
        results: [
            {
                var beacon = HardwareBeaconResult(
                    beaconID: "door", address: BluetoothAddress("F0:4C:0A:00:00:31"), profile: "kbeacon", status: .provisioned,
                    detail: "wrote minor=2, read back equal")
                beacon.written = [.minor]
                beacon.verdict = "ok"
                return beacon
            }(),
            HardwareBeaconResult(beaconID: "till", address: nil, status: .unmatched, detail: "no mac: in the manifest"),
            {
                var beacon = HardwareBeaconResult(
                    beaconID: "back", address: BluetoothAddress("F0:4C:0A:00:00:33"), profile: "eddystone-gatt", status: .partlyWritten,
                    detail: "not finished")
                beacon.written = [.txPower]
                beacon.notWritten = [.advertisingInterval]
                return beacon
            }(),
        ], dryRun: false)

    @Test("the table: one row per beacon, then the summary; failed when any beacon is not done")
    func table() {
        let text = HardwareProvisioningOutput.table(Self.result, style: Style(choice: .never, isTerminal: false, environment: [:]))
        #expect(text == """
            BEACON  ADDRESS            PROFILE         RESULT          DETAIL
            door    F0:4C:0A:00:00:31  kbeacon         provisioned     wrote minor=2, read back equal
            till    -                  -               unmatched       no mac: in the manifest
            back    F0:4C:0A:00:00:33  eddystone-gatt  partly-written  not finished
            failed: 3 beacons: 1 provisioned, 1 unmatched, 1 partly-written
            """)
    }

    @Test("the JSON: snake_case keys, what was written and what was not, the verdict")
    func json() throws {
        let text = try HardwareProvisioningOutput.json(Self.result)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(document["passed"] as? Bool == false)
        #expect(document["dry_run"] as? Bool == false)
        let beacons = try #require(document["beacons"] as? [[String: Any]])
        #expect(beacons.map { $0["status"] as? String } == ["provisioned", "unmatched", "partly-written"])
        #expect(beacons[0]["verdict"] as? String == "ok" && beacons[0]["written"] as? [String] == ["minor"])
        #expect(beacons[2]["written"] as? [String] == ["tx-power"] && beacons[2]["not_written"] as? [String] == ["advertising-interval"])
        #expect(beacons[1]["address"] == nil)
    }

    @Test("--log: one JSON line per write, appended, values as written, whether a password was set and never a password")
    func log() throws {
        let scratch = try ScratchFolder()
        let path = scratch.path + "/writes.jsonl"
        let log = try ProvisioningWriteLog(path: path)
        let record = ProvisioningWriteRecord(
            time: "2026-11-28T20:00:00.000Z", beacon: "door", address: "F0:4C:0A:00:00:31", profile: "kbeacon",
            values: ["minor": "2"], passwordChanged: true, outcome: "written")
        log.append(record)
        log.append(record)
        log.close()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0] == #"{"address":"F0:4C:0A:00:00:31","beacon":"door","outcome":"written","password_changed":true,"profile":"kbeacon","time":"2026-11-28T20:00:00.000Z","values":{"minor":"2"}}"#)
        // A record has no field a password could go into; the password type shows redacted anyway.
        #expect("\(BeaconPassword("secret-pass-123"))" == "<password redacted>")
        #expect(log.failure == nil)
    }
}
