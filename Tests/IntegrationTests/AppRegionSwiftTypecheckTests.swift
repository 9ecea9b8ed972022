import BeaconCore
import FleetManifest
import Foundation
import Testing

/// `fleet export --format swift` writes a file that compiles against Core Location. No Apple
/// SDK is available here, so the file is type-checked (`swiftc -typecheck`) against a stub
/// module named CoreLocation that declares exactly the documented signatures the file uses
/// (developer.apple.com/documentation/corelocation: `CLBeaconIdentityConstraint`
/// `init(uuid:)`, `init(uuid:major:)`, `init(uuid:major:minor:)`; `CLBeaconRegion`
/// `init(beaconIdentityConstraint:identifier:)`; `CLRegion.notifyOnEntry`/`notifyOnExit`;
/// `CLBeaconMajorValue`/`CLBeaconMinorValue` (UInt16); `CLMonitor.BeaconIdentityCondition`
/// `init(uuid:)`, `init(uuid:major:)`, `init(uuid:major:minor:)` (iOS 17);
/// `CLMonitor.add(_:identifier:assuming:)` with `CLMonitor.Event.State`). The stub proves the
/// file uses nothing else and uses these as declared; that the declarations match the SDK
/// is checked by reading Apple's pages, not here.
@Suite("the Swift export type-checks against Core Location's documented declarations")
struct AppRegionSwiftTypecheckTests {
    static let coreLocationStub = """
        @_exported import Foundation

        public typealias CLBeaconMajorValue = UInt16
        public typealias CLBeaconMinorValue = UInt16

        open class CLRegion: NSObject {
            open var identifier: String { "" }
            open var notifyOnEntry: Bool = true
            open var notifyOnExit: Bool = true
        }

        open class CLBeaconIdentityConstraint: NSObject {
            public init(uuid: UUID) {}
            public init(uuid: UUID, major: CLBeaconMajorValue) {}
            public init(uuid: UUID, major: CLBeaconMajorValue, minor: CLBeaconMinorValue) {}
        }

        open class CLBeaconRegion: CLRegion {
            public init(beaconIdentityConstraint: CLBeaconIdentityConstraint, identifier: String) {}
        }

        public protocol CLCondition: Sendable {}

        public enum CLMonitoringState: UInt, Sendable {
            case unknown, satisfied, unsatisfied
        }

        public actor CLMonitor {
            public struct Event: Sendable {
                public typealias State = CLMonitoringState
            }

            public struct BeaconIdentityCondition: CLCondition {
                public let uuid: UUID
                public let major: UInt16?
                public let minor: UInt16?
                public init(uuid: UUID) { self.uuid = uuid; major = nil; minor = nil }
                public init(uuid: UUID, major: UInt16) { self.uuid = uuid; self.major = major; minor = nil }
                public init(uuid: UUID, major: UInt16, minor: UInt16) { self.uuid = uuid; self.major = major; self.minor = minor }
            }

            public func add(_ condition: any CLCondition, identifier: String, assuming state: CLMonitor.Event.State) {}
        }
        """

    /// Every shape of region: UUID only, with a major, with a minor; an id that needs escaping.
    static let manifest = """
        version: 1
        fleet: jays-donuts
        uuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3
        venues:
          - id: cupertino
            major: 1
            beacons:
              - {id: register, minor: 2}
        regions:
          - id: any-jays
          - id: "cupertino \\\\ \\"store\\" ☕"
            major: 1
            notify_on_exit: false
          - id: register
            major: 1
            minor: 2
            notify_state_on_start: true
        """

    static func swiftc() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/swiftc" } + ["/opt/swift/usr/bin/swiftc", "/usr/bin/swiftc"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs swiftc; its diagnostics, or `nil` when it succeeded.
    static func run(_ swiftc: String, _ arguments: [String], in folder: URL) async throws -> String? {
        let log = folder.appendingPathComponent("swiftc-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: swiftc)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.standardOutput = handle
        process.standardError = handle
        let status = try await ChildProcess.runToEnd(process)
        if status == .exited(0) { return nil }
        return "swiftc \(arguments.joined(separator: " ")) \(status):\n" + ((try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    @Test("swiftc -typecheck accepts the exported file against the stub; a wrong signature in the file would be refused", .timeLimit(.minutes(3)))
    func exportedFileTypeChecks() async throws {
        let compiler = Self.swiftc()
        #expect(compiler != nil || !RootCanalInstallation.isRequired, "no swiftc on PATH")
        guard let compiler else { return }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swift-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let result = ManifestLoader.load(sources: [("jays.yaml", Array(Self.manifest.utf8))])
        #expect(result.errorCount == 0, "\(result.diagnostics.map(\.rendered))")
        let source = AppRegionSwiftSource.file(result.fleet.regions, fleet: "jay's \"donuts\"", budget: .iOS)
        try Self.coreLocationStub.write(to: folder.appendingPathComponent("CoreLocation.swift"), atomically: true, encoding: .utf8)
        try source.write(to: folder.appendingPathComponent("FleetRegions.swift"), atomically: true, encoding: .utf8)

        let module = try await Self.run(compiler, [
            "-emit-module", "-module-name", "CoreLocation", "-parse-as-library", "-swift-version", "6",
            "-emit-module-path", folder.appendingPathComponent("CoreLocation.swiftmodule").path, "CoreLocation.swift",
        ], in: folder)
        #expect(module == nil, "\(module ?? "")")
        let typecheck = try await Self.run(compiler, [
            "-typecheck", "-swift-version", "6", "-warnings-as-errors", "-parse-as-library", "-I", folder.path, "FleetRegions.swift",
        ], in: folder)
        #expect(typecheck == nil, "\(typecheck ?? "")\n\(source)")

        // The check can fail: a file calling an initialiser Core Location does not declare is refused.
        let wrong = source.replacingOccurrences(of: "CLBeaconRegion(beaconIdentityConstraint:", with: "CLBeaconRegion(constraint:")
        try wrong.write(to: folder.appendingPathComponent("Wrong.swift"), atomically: true, encoding: .utf8)
        let refused = try await Self.run(compiler, ["-typecheck", "-swift-version", "6", "-parse-as-library", "-I", folder.path, "Wrong.swift"], in: folder)
        #expect(refused?.contains("constraint:") == true, "\(refused ?? "accepted")")
    }
}
