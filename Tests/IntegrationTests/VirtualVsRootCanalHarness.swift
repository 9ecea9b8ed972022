import BeaconFleet
import BeaconPlatform
import HCI
import HCITransports
import Testing
import VirtualRadio

/// One command of a sequence run against RootCanal and the virtual controller, and what
/// of the two answers must agree.
struct ComparedStep: CustomStringConvertible {
    /// What of the answers must agree.
    enum Agreement {
        /// Status and every return parameter byte.
        case exact
        /// Status and the length of the return parameters; the values legitimately differ
        /// (addresses, manufacturer, the TX power selected for "no preference").
        case shape
        /// Status, length, and the return parameter bytes at these offsets after the status.
        case bytes(at: [Int])
        /// Status, length, and these bits of the 64-bit value after the status.
        case bits(UInt64)
    }

    let label: String
    let command: HCICommandPacket
    let agreement: Agreement

    init(_ label: String, _ command: HCICommandPacket, _ agreement: Agreement = .exact) {
        self.label = label
        self.command = command
        self.agreement = agreement
    }

    init<Command: HCICommand>(_ label: String, _ command: Command, _ agreement: Agreement = .exact) throws {
        try self.init(label, HCICommandPacket(command), agreement)
    }

    init(_ label: String, opcode: UInt16, _ parameters: [UInt8] = [], _ agreement: Agreement = .exact) throws {
        try self.init(label, HCICommandPacket(opcode: HCIOpcode(rawValue: opcode), parameters: parameters), agreement)
    }

    var description: String { "\(label) (\(command))" }

    /// Why the two answers disagree, or `nil` when they agree as required.
    func disagreement(rootCanal: HCICommandAnswer, virtual: HCICommandAnswer) -> String? {
        let mismatch = "\(label): RootCanal answered \(Self.show(rootCanal)), the virtual controller \(Self.show(virtual))"
        guard case .complete(let expected) = rootCanal, case .complete(let actual) = virtual else {
            return rootCanal == virtual ? nil : mismatch
        }
        guard expected.first == actual.first, expected.count == actual.count else { return mismatch }
        switch agreement {
        case .exact:
            return expected == actual ? nil : mismatch
        case .shape:
            return nil
        case .bytes(let offsets):
            return offsets.allSatisfy { expected[1 + $0] == actual[1 + $0] } ? nil : mismatch
        case .bits(let mask):
            func value(_ bytes: [UInt8]) -> UInt64 {
                bytes.dropFirst().prefix(8).enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
            }
            return value(expected) & mask == value(actual) & mask ? nil : mismatch
        }
    }

    static func show(_ answer: HCICommandAnswer) -> String {
        switch answer {
        case .complete(let bytes): return "Command Complete [\(bytes.map { hex($0) }.joined(separator: " "))]"
        case .status(let status): return "Command Status \(status)"
        }
    }

    static func hex(_ byte: UInt8) -> String {
        let text = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0" + text : text
    }
}

/// The virtual controller configured the way RootCanal 1.10 describes itself where the
/// two may legitimately differ by configuration: legacy advertising at −10 dBm, 512 bytes
/// of advertising data per set.
let rootCanalLikeController = VirtualControllerConfiguration(maximumAdvertisingDataLength: 512, legacyTxPower: -10)

/// Runs `steps` on a new RootCanal controller and on a new virtual controller, through
/// `HostController` both, and returns each step's two answers.
func runOnBoth(
    _ steps: [ComparedStep], rootCanal: RootCanal, virtual configuration: VirtualControllerConfiguration = rootCanalLikeController
) async throws -> [(step: ComparedStep, rootCanal: HCICommandAnswer, virtual: HCICommandAnswer)] {
    // Both answer as soon as they can: a RootCanal process on a busy machine may take a
    // while, so the timeouts are safety nets that turn a hang into a failure, no more.
    let rootCanalHost = HostController(
        transport: try await ControllerTransports.open(try HCITransportSpec(parsing: rootCanal.hciTransportSpec)),
        defaultTimeout: .seconds(60))
    let air = VirtualAir(name: "compared")
    let virtualHost = HostController(transport: air.attachController(configuration), defaultTimeout: .seconds(60))
    var answers: [(step: ComparedStep, rootCanal: HCICommandAnswer, virtual: HCICommandAnswer)] = []
    do {
        for step in steps {
            let fromRootCanal = try await rootCanalHost.send(step.command)
            let fromVirtual = try await virtualHost.send(step.command)
            answers.append((step, fromRootCanal, fromVirtual))
        }
    } catch {
        await rootCanalHost.close()
        await virtualHost.close()
        throw error
    }
    await rootCanalHost.close()
    await virtualHost.close()
    return answers
}

/// Runs `steps` on both and records every disagreement as a test issue.
func expectSameAnswers(
    _ steps: [ComparedStep], rootCanal: RootCanal, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    for (step, fromRootCanal, fromVirtual) in try await runOnBoth(steps, rootCanal: rootCanal) {
        if let disagreement = step.disagreement(rootCanal: fromRootCanal, virtual: fromVirtual) {
            Issue.record(Comment(rawValue: disagreement), sourceLocation: sourceLocation)
        }
    }
}
