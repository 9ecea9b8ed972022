import BeaconCore
import BeaconFleet
import BeaconTestKit
import ClockTestKit
import Foundation
import HCI
import ProcessTestKit
import Testing

/// No silent loss, end to end: `scan`, `verify` and `monitor` run as processes against a
/// controller that floods them while their scan cannot read, and must tell the user how
/// many reports were lost.
///
/// The flood is made deterministic rather than hoped for: once the command is scanning, the
/// scripted controller (on TCP, as RootCanal would be) says it was reset, and then sends
/// `floodSize` advertising reports before any answer. The scan reacts to the reset by
/// setting the controller up again, so its reader waits for the answer to Set Event Mask,
/// which arrives behind the whole flood: the scan's bounded subscription (4096 events)
/// overflows by design, and the host counts every event it had to drop.
@Suite("Lost reports reach the user", .timeLimit(.minutes(3)), .serialized)
struct ReceptionLossCommandTests {
    static let floodSize = 20_000
    static let uuid = ProximityUUID(high: 0x04F6_CBA0_321A_40F4, low: 0xBDE2_A613_959B_BF4B)
    /// The till of the corner shop: the door and the back room are never heard.
    static let flooding = BeaconIdentity(uuid: uuid, major: 1, minor: 2)
    static let manifest = ManifestFixtures.cornerShop
    static let uuidMatchesTheManifest = "\(uuid)" == ManifestFixtures.cornerShopUUID

    /// The reset notice and the flood of reports of `flooding`, as the controller sends them.
    static func floodPackets() throws -> [HCIPacket] {
        let advertisement = IBeaconAdvertisement(identity: flooding, measuredPower: -59)
        let address = try #require(BluetoothAddress("C4:5B:BE:12:34:56"))
        let report = HCI.LEAdvertisingReport(
            eventType: .advNonconnInd, addressType: .random, address: address,
            data: advertisement.advertisingData, rssi: -60)
        let reportPacket = try HCIEvent.le(.advertisingReport([report])).packet()
        let resetNotice = try HCIEvent.commandComplete(.init(answering: Reset.self)).packet()
        return [resetNotice] + Array(repeating: reportPacket, count: floodSize)
    }

    /// Runs beaconctl with `arguments(spec)` against a flooding controller on TCP; once the
    /// flood has been read and scanning set up again, sends SIGINT (unless the command
    /// ended by itself) and returns how it ended.
    static func runFlooded(_ arguments: (String) -> [String]) async throws -> (status: Int32?, output: String, error: String) {
        var configuration = ScriptedController.Configuration()
        configuration.features = []  // legacy scanning: one report per event, as counted
        let controller = ScriptedController(name: "flooding controller", configuration: configuration)
        let endpoint = try TCPControllerEndpoint(serving: controller)
        // Every command is answered at once; the long command timeout only keeps a loaded
        // machine's slow reading of the flood from being taken for an unanswered command.
        let process = try BeaconctlProcess(arguments(endpoint.spec) + ["--command-timeout", "60"])

        try await controller.waitFor(.leSetScanEnable)
        try await ProcessSignals.waitUntilCatching([SIGINT, SIGTERM], pid: process.processIdentifier)
        let before = controller.commands.count
        endpoint.inject(try floodPackets())
        // Set up again after the reset: Set Event Mask (answered behind the flood), then
        // scanning enabled again. Only then has the host read every report of the flood.
        do {
            try await controller.waitForCommands("scanning set up again after the flood") { commands in
                let after = commands.dropFirst(before).map(\.opcode)
                guard let mask = after.firstIndex(of: .setEventMask) else { return false }
                return after[mask...].contains(.leSetScanEnable)
            }
        } catch {
            process.signal(SIGKILL)
            throw TestFailure("\(error)\nbeaconctl's errors so far:\n\(process.standardError)")
        }
        process.signal(SIGINT)
        let status = await process.waitForExit()
        endpoint.close()
        return (status, process.standardOutput, process.standardError)
    }

    /// The number in "N reports were lost …" of `text`, if it says so.
    static func lostCount(in text: String) -> Int? {
        guard let range = text.range(of: #"(\d+) reports were lost"#, options: .regularExpression) else { return nil }
        return Int(text[range].prefix { $0.isNumber })
    }

    /// At least what overflowed the scan's subscription; at most the whole flood.
    static let plausibleLosses = (floodSize - 4096 - 16)...(floodSize + 16)

    @Test("the flooding beacon is the manifest's till")
    func floodingBeaconIsInTheManifest() {
        #expect(Self.uuidMatchesTheManifest)
    }

    @Test("scan says how many reports were lost")
    func scanSaysSo() async throws {
        let run = try await Self.runFlooded { ["scan", "--hci", $0, "--format", "jsonl"] }
        #expect(run.status == 0, "\(run.error)")
        let lost = try #require(Self.lostCount(in: run.error), "no loss reported: \(run.error)")
        #expect(Self.plausibleLosses.contains(lost), "\(lost) lost")
        #expect(run.error.contains("reports were lost between the controller and the output"), "\(run.error)")
        // What was read before the interrupt was written out whole (how much that is depends
        // on the machine: SIGINT follows the flood at once).
        let written = try SightingRecording.jsonLines(text: run.output, source: "scan output")
        #expect(written.allSatisfy { $0.identity == Self.flooding })
    }

    @Test("verify counts the lost reports and says its verdicts may be wrong")
    func verifySaysSo() async throws {
        let folder = try TemporaryFolder()
        let manifest = try folder.write("shop.yaml", Self.manifest)
        let run = try await Self.runFlooded { ["verify", manifest, "--hci", $0, "--timeout", "600"] }
        // The door beacon was never heard: a finding, exit status 1.
        #expect(run.status == 1, "\(run.error)")
        let lost = try #require(Self.lostCount(in: run.output), "no loss reported: \(run.output)")
        #expect(Self.plausibleLosses.contains(lost), "\(lost) lost")
        #expect(run.output.contains("the missing, weak and slow verdicts may be wrong"), "\(run.output)")
    }

    @Test("monitor says how many reports were lost")
    func monitorSaysSo() async throws {
        let run = try await Self.runFlooded {
            ["monitor", "--hci", $0, "--region", "shop=\(Self.uuid)", "--format", "jsonl"]
        }
        #expect(run.status == 0, "\(run.error)")
        let lost = try #require(Self.lostCount(in: run.error), "no loss reported: \(run.error)")
        #expect(Self.plausibleLosses.contains(lost), "\(lost) lost")
        #expect(run.error.contains("reports were lost between the controller and monitoring"), "\(run.error)")
    }
}
