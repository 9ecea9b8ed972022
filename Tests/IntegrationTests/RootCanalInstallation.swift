import Foundation
import Testing

/// The RootCanal binary of the project's test virtual environment, found where
/// `scripts/setup-venv.sh` installs it.
///
/// The venv is `$BEACONCTL_VENV` when set, else `.venv` at the package root. The binary ships
/// inside the `rootcanal` wheel: `lib/python3.X/site-packages/rootcanal/bin/linux-ARCH/rootcanal`.
struct RootCanalInstallation: Sendable {
    static let setupCommand = "scripts/setup-venv.sh"
    static let venvVariable = "BEACONCTL_VENV"

    let venv: URL
    let binary: URL

    /// The lookup done once per test process: every test sees the same answer.
    static let current: Result<RootCanalInstallation, RootCanalUnavailable> = locate(
        environment: ProcessInfo.processInfo.environment)

    /// Whether a missing RootCanal fails the tests (`CI=true`) rather than skipping them:
    /// CI must never pass by testing nothing.
    static var isRequired: Bool {
        let value = ProcessInfo.processInfo.environment["CI"]?.lowercased()
        return value == "true" || value == "1"
    }

    static func locate(environment: [String: String]) -> Result<RootCanalInstallation, RootCanalUnavailable> {
        let venv: URL
        let whereFrom: String
        if let configured = environment[venvVariable], !configured.isEmpty {
            venv = URL(fileURLWithPath: configured, isDirectory: true)
            whereFrom = "from \(venvVariable)"
        } else if let root = packageRoot() {
            venv = root.appendingPathComponent(".venv", isDirectory: true)
            whereFrom = "the default, \(venvVariable) is not set"
        } else {
            return .failure(RootCanalUnavailable(
                reason: "no Package.swift above \(#filePath) to find the default venv, and \(venvVariable) is not set"))
        }

        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: venv.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return .failure(RootCanalUnavailable(reason: "no virtual environment at \(venv.path) (\(whereFrom))"))
        }
        let lib = venv.appendingPathComponent("lib", isDirectory: true)
        // Any python3.X: the venv is built with whatever Python 3 the machine has.
        let pythonDirectories = ((try? fileManager.contentsOfDirectory(atPath: lib.path)) ?? [])
            .filter { $0.hasPrefix("python3.") }
            .sorted()
        let relativeBinary = "site-packages/rootcanal/bin/linux-\(machineArchitecture)/rootcanal"
        for pythonDirectory in pythonDirectories {
            let candidate = lib.appendingPathComponent(pythonDirectory).appendingPathComponent(relativeBinary)
            if fileManager.isExecutableFile(atPath: candidate.path) {
                return .success(RootCanalInstallation(venv: venv, binary: candidate))
            }
        }
        return .failure(RootCanalUnavailable(
            reason: "the virtual environment at \(venv.path) (\(whereFrom)) has no executable lib/python3.*/\(relativeBinary)"))
    }

    /// The folder holding Package.swift, found by walking up from this source file.
    private static func packageRoot() -> URL? {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                return directory
            }
            directory.deleteLastPathComponent()
        }
        return nil
    }

    /// The architecture name the rootcanal wheel uses for its per-platform binary folders.
    private static var machineArchitecture: String {
        #if arch(x86_64)
            "x86_64"
        #elseif arch(arm64)
            "aarch64"
        #else
            "unsupported"
        #endif
    }
}

/// Why RootCanal cannot be used, and what to run to fix it.
struct RootCanalUnavailable: Error, CustomStringConvertible {
    let reason: String

    var description: String {
        "RootCanal is not installed: \(reason). Run \(RootCanalInstallation.setupCommand) "
            + "(or point \(RootCanalInstallation.venvVariable) at a venv it created)."
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the tests only where RootCanal is installed, or where it must be (`CI=true`, so
    /// that `withRootCanal` fails them with the setup command). Elsewhere the test run lists
    /// them as skipped, with the reason.
    static var requiresRootCanal: Self {
        let skipReason: String
        switch RootCanalInstallation.current {
        case .success: skipReason = "RootCanal is installed"
        case .failure(let unavailable): skipReason = unavailable.description
        }
        return .enabled(
            if: RootCanalInstallation.isRequired || (try? RootCanalInstallation.current.get()) != nil,
            Comment(rawValue: skipReason))
    }
}
