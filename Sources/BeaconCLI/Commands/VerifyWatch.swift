import ArgumentParser
import BeaconCore
import BeaconFleet
import Logging

/// `verify --watch`: the continuous audit (docs/verify.md, "--watch").
extension VerifyCommand {
    /// Watches the controller or the input until SIGINT/SIGTERM or the end of the input; at
    /// the end of the input, anything but every beacon ok is exit status 1. `venueNames`:
    /// the manifest's venue names by id, for Home Assistant's areas.
    func watchContinuously(plan: VerificationPlan, venueNames: [String: String] = [:]) async throws {
        let console = Console.current
        let logger = globals.makeLogger()
        // Served first: a port in use stops the watch before it says anything else.
        let serving = try MetricsServing.start(watchOptions.metrics, command: "verify --watch", logger: logger)
        defer { serving?.stop() }
        let format: WatchOutput.Format
        switch reports.format {
        case .jsonl: format = .jsonl
        case .text: format = .text
        default: format = console.standardOutputIsTerminal ? .text : .jsonl
        }
        var sinks: [any AuditEventSink] = [WatchOutput(format: format, console: console)]
        let program = watchOptions.exec.flatMap {
            ProgramHook(command: $0, environment: console.environment, logger: logger, label: "beaconctl.verify-exec")
        }
        if let program { sinks.append(WatchEventHook(program: program)) }
        let service: AuditWatchService
        do {
            service = try AuditWatchService.start(
                plan: plan, settings: watchOptions.settings(venueNames: venueNames, environment: console.environment), sinks: sinks,
                logger: logger)
        } catch {
            switch error {
            case .publishing(let setup): throw CommandFailure(setup)
            default: throw CommandFailure(.usageOrInput, error.description)
            }
        }
        // A broker's sightings are read like a pipe: live, each receiver on its own clock.
        let broker = try BrokerInput.open(sightingInput, role: "watch", environment: console.environment, logger: logger)
        let watch = service.watch(followsReceivers: broker != nil, readings: serving?.registerWatch(beacons: plan.expected.count))
        serving?.registerBrokerClients(input: broker?.metricsClients ?? [], publish: service.publishing?.client)
        if let serving, let broker { serving.registerSkippedMessages(broker.feed) }

        // SIGINT or SIGTERM end the watch with its final report; `StopDeadline` ends the
        // process if that takes longer than a service may.
        let stops = SignalStops(stopWithin: StopDeadline.watchLimit)
        let outcome: Result<AuditStatusReport, any Error>
        do {
            if let broker {
                outcome = .success(try await worded { try await service.run(watch, broker: broker, stops: stops) })
            } else if let input {
                outcome = .success(try await worded {
                    try await service.run(watch, recording: input, stallAfter: watchOptions.stallAfter.flatMap(SecondsFlag.duration), stops: stops)
                })
            } else {
                outcome = .success(try await controller.scanning(logger: logger) { scan in
                    try await worded { try await service.run(watch, scan: scan, stops: stops) }
                })
            }
        } catch {
            outcome = .failure(error)
        }
        if case .failure = outcome { await program?.finish(stopping: true) } else { await program?.finish() }
        let report: AuditStatusReport
        do {
            report = try await service.finish(outcome) { try await broker?.close() }
        } catch let failure as AuditWatchService.Failure {
            throw CommandFailure(.controller, failure.description)
        }
        let batteryLow = report.batteries.contains { $0.standing == .low }
        if report.end == .inputEnded && (!report.statistics.allOK || batteryLow) { throw ExitStatus.findings.exitCode }
    }

    /// The watch's report, or its failure worded as the command's (`CommandFailure(watching:)`).
    private func worded(_ watching: () async throws -> AuditStatusReport) async throws -> AuditStatusReport {
        do {
            return try await watching()
        } catch {
            throw CommandFailure(watching: error)
        }
    }
}
