import BeaconFleet
import FleetManifest
import Foundation

extension ProvisionCommand {
    /// `provision --hardware`: the request from the options, the provisioner on --hci, the
    /// result as a table or JSON.
    func runHardware(_ fleet: Fleet) async throws {
        let console = Console.current
        let passwords = try hardware.passwords(environment: console.environment, interactive: isatty(STDIN_FILENO) == 1)
        let log = try hardware.logFile.map { path throws(CommandFailure) in try ProvisioningWriteLog(path: path) }
        defer { log?.close() }
        let request = try hardware.request(
            fleet: fleet, passwords: passwords, policy: VerificationPolicy(requiredSightings: requiredSightings, timeout: listeningTime))

        let spec = try controller.transportSpec(environment: console.environment)
        let capture = try controller.openCapture()
        defer { capture?.close() }
        let host = try await controller.openHost(spec, capture: capture)
        let namespace = manifests
        let askFirst = !hardware.yes
        let errorStyle = globals.style(forStandardError: true)
        let provisioner = HardwareProvisioner(
            request: request, host: host, platform: controller.platform, scanConfiguration: ScanConfiguration(access: ControllerAccess(spec)),
            logger: globals.makeLogger(),
            confirm: { beacon, peripheral in
                guard askFirst else { return true }
                return await HardwareProvisioningProgress.ask(beacon, peripheral, console: console)
            },
            recordAddress: { beacon, address in AssignedAddressRecording.record(address, of: beacon, namespace: namespace) },
            onWrite: { record in log?.append(record) })
        // SIGINT or SIGTERM cancels the run: the beacon being written ends partly-written or
        // unreachable, those after it are reported as not attempted, and the table still prints.
        let (outcome, _) = await TerminationSignals.cancellingOnSignal(onSignal: { signal in
            console.errorLine("provision: \(TerminationSignals.name(of: signal)) received, stopping after this step")
        }) { () -> Result<HardwareProvisioningResult, HardwareProvisioningError> in
            do throws(HardwareProvisioningError) {
                return .success(try await provisioner.run { event in
                    HardwareProvisioningProgress.show(event, console: console, style: errorStyle)
                })
            } catch {
                return .failure(error)
            }
        }
        await host.close()
        switch outcome {
        case .failure(.usage(let message)):
            throw CommandFailure(.usageOrInput, message)
        case .failure(.controller(let message)):
            throw CommandFailure(.controller, message)
        case .success(let result):
            try HardwareProvisioningProgress.printResult(result, json: reports.format == .json, console: console, style: globals.style())
            // The beacons were written as reported; a write missing from the log is said after.
            if let failure = log?.failure { throw failure }
            if !result.passed { throw ExitStatus.findings.exitCode }
        }
    }
}
