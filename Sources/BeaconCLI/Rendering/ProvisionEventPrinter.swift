import BeaconCore
import BeaconFleet
import Synchronization

/// What `provision` shows while it runs: advertiser and verification news on standard
/// error, the report on standard output (and in the report files) once it is in.
final class ProvisionEventPrinter: Sendable {
    private let console: Console
    private let reports: VerifyReportOptions
    private let style: Style
    private let errorStyle: Style
    private let once: Bool
    private let progress: VerifyProgressLine
    private let failure = Mutex<CommandFailure?>(nil)

    init(console: Console, reports: VerifyReportOptions, style: Style, errorStyle: Style, timeout: Duration?, once: Bool) {
        self.console = console
        self.reports = reports
        self.style = style
        self.errorStyle = errorStyle
        self.once = once
        self.progress = VerifyProgressLine(console: console, timeout: timeout)
    }

    /// Writing a report file failed: the command ends with this once the beacons are off the air.
    var reportFailure: CommandFailure? { failure.withLock { $0 } }

    func print(_ event: ProvisionEvent) {
        switch event {
        case .advertiser(let advertiserEvent):
            printAdvertiser(advertiserEvent)
        case .verifying(let expected, let controller):
            console.errorLine("provision: verifying \(NumberText.count(expected, "beacon")) from \(controller)")
        case .verification(let state, _):
            progress.update(state)
        case .verified(let result):
            progress.clear()
            do {
                try reports.emit(result, style: style)
            } catch let error as CommandFailure {
                failure.withLock { $0 = $0 ?? error }
            } catch {
                failure.withLock { $0 = $0 ?? CommandFailure(.usageOrInput, "\(error)") }
            }
            if !once {
                console.errorLine("provision: the beacons stay on the air; stop with Ctrl-C or SIGTERM")
            }
        }
    }

    func noteSignal(_ name: String) {
        progress.clear()
        console.errorLine("provision: \(name) received, taking the beacons off the air")
    }

    private func printAdvertiser(_ event: AdvertiserEvent) {
        switch event {
        case .started(let session):
            let count = session.beacons.count
            var line = "provision: advertising \(NumberText.count(count, "beacon")) on \(session.controller.name) (\(session.family)"
            if let effective = session.effectiveInterval { line += ", each every \(effective) in rotation" }
            console.errorLine(line + ")")
        case .warning(let text):
            console.errorLine(errorStyle.warning("warning") + ": " + text)
        case .interrupted(let fault, let retryIn):
            progress.clear()
            let next = retryIn.map { "; restarting in \($0)" } ?? ""
            console.errorLine(errorStyle.error("error") + ": beacons off the air: \(fault)\(next)")
        case .restartFailed(let reason, let attempt, let retryIn):
            console.errorLine(errorStyle.warning("warning") + ": restart attempt \(attempt) failed: \(reason); next in \(retryIn)")
        case .stopped(let reason):
            console.errorLine("provision: beacons off the air (\(reason))")
        }
    }
}
