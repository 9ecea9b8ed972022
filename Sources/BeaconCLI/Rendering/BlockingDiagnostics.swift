import BeaconCore
import FleetManifest

/// Prints a load's diagnostics to standard error and stops when they include errors or an
/// unreadable input: export and import never hand on a broken fleet.
func reportBlockingDiagnostics(_ result: ManifestLoadResult) throws {
    for diagnostic in result.diagnostics { Console.current.errorLine(diagnostic.rendered) }
    if !result.unreadableInputs.isEmpty { throw ExitStatus.usageOrInput.exitCode }
    if result.errorCount > 0 {
        Console.current.errorLine("beaconctl: error: the manifest has \(NumberText.count(result.errorCount, "error")); fix them first (`beaconctl fleet validate` lists them).")
        throw ExitStatus.findings.exitCode
    }
}
