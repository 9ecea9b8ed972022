import BeaconCore
import BeaconTestKit
import Foundation
import Logging
import Synchronization
import Testing

@testable import BeaconFleet

/// `verify --watch` as a use case over a recording: a regular file replayed to its end, a stop
/// that ends the watch with its final report, a malformed input that fails it, and the state
/// file kept from one run to the next.
struct AuditWatchServiceTests {
    typealias Script = VerificationScript

    /// Keeps every change and the final report.
    final class KeepingSink: AuditEventSink {
        let changes = Mutex<[AuditEvent]>([])
        let reports = Mutex<[AuditStatusReport]>([])
        func deliver(_ event: AuditEvent) { changes.withLock { $0.append(event) } }
        func deliver(_ report: AuditStatusReport) { reports.withLock { $0.append(report) } }
    }

    static func plan() throws -> VerificationPlan {
        try Script.plan([Script.beacon("door", minor: 1), Script.beacon("hall", minor: 2)])
    }

    /// A JSON lines recording in a file of its own; the caller removes it.
    static func recording(_ lines: [String]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("watch-service-\(UUID().uuidString).jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func start(_ settings: AuditWatchService.Settings = .init(), sink: KeepingSink) throws -> AuditWatchService {
        try AuditWatchService.start(plan: try plan(), settings: settings, sinks: [sink], logger: Logger(label: "test"))
    }

    @Test("a regular file is replayed on its own clock to its end: the changes reach the sinks, the end is the input's")
    func replayedFile() async throws {
        let path = try Self.recording(Script.train(Script.identity(minor: 1), count: 20).map(SightingJSONLines.encode))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = KeepingSink()
        let service = try Self.start(sink: sink)
        let watch = service.watch(followsReceivers: false, readings: nil)
        let report = try await service.finish(.success(try await service.run(watch, recording: path, stallAfter: nil, stops: NoStopRequests()))) {}
        #expect(report.end == .inputEnded)
        #expect(report.statistics.beaconStates[.ok] == 1)
        #expect(!report.statistics.allOK)
        #expect(sink.changes.withLock { $0.map(\.beaconID) } == ["door"])
        #expect(sink.changes.withLock { $0.map(\.state) } == [.ok])
        #expect(sink.reports.withLock { $0.last?.end } == .inputEnded)
    }

    @Test("a stop ends the watch with its final report, not a failure")
    func stopped() async throws {
        let path = try Self.recording(Script.train(Script.identity(minor: 1), count: 20).map(SightingJSONLines.encode))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = KeepingSink()
        let service = try Self.start(sink: sink)
        let stops = ManualStops()
        // Stopped before the watch starts: the stoppable part is cancelled as it begins.
        stops.stop()
        let report = try await service.run(service.watch(followsReceivers: false, readings: nil), recording: path, stallAfter: nil, stops: stops)
        #expect(stops.started == 1)
        #expect(report.end == .interrupted)
        #expect(sink.reports.withLock { $0.last?.end } == .interrupted)
    }

    @Test("a malformed recording fails the watch with the input's error, naming its line")
    func malformed() async throws {
        let path = try Self.recording([SightingJSONLines.encode(Script.sighting(Script.identity(minor: 1), at: 0)), "{\"not\": \"a sighting\"}"])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let service = try Self.start(sink: KeepingSink())
        await #expect {
            try await service.run(service.watch(followsReceivers: false, readings: nil), recording: path, stallAfter: nil, stops: NoStopRequests())
        } throws: { error in
            (error as? SightingStreamError)?.description.contains("line 2") == true
        }
    }

    @Test("the state file is written at the end, and the next watch starts from it: only changes from it are reported")
    func stateFileKept() async throws {
        let path = try Self.recording(Script.train(Script.identity(minor: 1), count: 20).map(SightingJSONLines.encode))
        let stateFile = FileManager.default.temporaryDirectory.appendingPathComponent("watch-state-\(UUID().uuidString).json").path
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: stateFile)
        }
        var settings = AuditWatchService.Settings()
        settings.stateFile = stateFile
        for run in 1...2 {
            let sink = KeepingSink()
            let service = try Self.start(settings, sink: sink)
            let watch = service.watch(followsReceivers: false, readings: nil)
            _ = try await service.finish(.success(try await service.run(watch, recording: path, stallAfter: nil, stops: NoStopRequests()))) {}
            #expect(try AuditStateFile.read(stateFile)?.beacons["door"] == .ok)
            // The first run finds the door ok; the second starts there, so nothing changed.
            #expect(sink.changes.withLock { $0.count } == (run == 1 ? 1 : 0))
        }
    }
}
