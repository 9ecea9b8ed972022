import BeaconCore
import Foundation
import Logging
import Testing

@testable import BeaconFleet

/// `calibrate --input`'s collection without the command line: a recording's first seconds,
/// on its receivers' one clock.
@Suite("Calibration samples from a recording")
struct RecordedCalibrationTests {
    static let identity = BeaconIdentity(uuid: testUUID, major: 1, minor: 2)

    /// `lines` written to a temporary file, removed after `body`.
    static func withFile<Value>(_ lines: [String], _ body: (String) async throws -> Value) async throws -> Value {
        let path = NSTemporaryDirectory() + "beaconctl-calibration-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
        return try await body(path)
    }

    @Test("the first seconds of one receiver's recording, other identities left out")
    func oneReceiver() async throws {
        let lines = [0.0, 1, 2, 10].map { ScanRunTests.line(minor: 2, time: $0) } + [ScanRunTests.line(minor: 3, time: 3)]
        let sampler = try await Self.withFile(lines) { path in
            try await CalibrationSampler.collect(Self.identity, fromRecording: path, for: 5, logger: ScanRunTests.logger)
        }
        // 10 is past 0 + 5 and ends the collection; minor 3 is another beacon.
        #expect(sampler.transmitters.map(\.samples) == [3])
    }

    @Test("receivers appended together are cut on one clock, not on the first receiver's")
    func receiversAppended() async throws {
        let lines = [0.0, 1, 2].map { ScanRunTests.line(minor: 2, time: $0, receiver: "a") }
            + [1000.0, 1001].map { ScanRunTests.line(minor: 2, time: $0, receiver: "b") }
        let sampler = try await Self.withFile(lines) { path in
            try await CalibrationSampler.collect(Self.identity, fromRecording: path, for: 5, logger: ScanRunTests.logger)
        }
        // b joins where the clock stands (2): its sightings fall at 2 and 3, within 5.
        #expect(sampler.transmitters.map(\.samples) == [5])
        #expect(sampler.receiver == "b")
    }

    @Test("a malformed recording throws its error")
    func malformed() async throws {
        await #expect(throws: SightingStreamError.self) {
            try await Self.withFile([ScanRunTests.line(minor: 2, time: 0), "{"]) { path in
                try await CalibrationSampler.collect(Self.identity, fromRecording: path, for: 5, logger: ScanRunTests.logger)
            }
        }
    }
}
