import BeaconCore
import BeaconFleet
import Synchronization

/// The one-line progress a verification shows on a terminal's standard error while it
/// listens ("verify: 12/34 decided · 431 sightings · 2.3 s of 10.0 s"), redrawn in place
/// at most ten times a second and erased before the report. Nothing is drawn when standard
/// error is not a terminal (a log file or CI would fill with redraws).
final class VerifyProgressLine: Sendable {
    private struct State {
        var lastDrawn: ContinuousClock.Instant?
        var visible = false
    }

    private let console: Console
    private let enabled: Bool
    /// `nil`: the pass runs to the end of its input.
    private let timeout: Duration?
    private let state = Mutex(State())
    private static let redrawInterval: Duration = .milliseconds(100)

    init(console: Console, timeout: Duration?, enabled: Bool? = nil) {
        self.console = console
        self.timeout = timeout
        self.enabled = enabled ?? console.standardErrorIsTerminal
    }

    func update(_ progress: VerificationProgress) {
        guard enabled else { return }
        let now = ContinuousClock.now
        let due = state.withLock { state -> Bool in
            if let last = state.lastDrawn, now - last < Self.redrawInterval { return false }
            state.lastDrawn = now
            state.visible = true
            return true
        }
        guard due else { return }
        var text = "verify: \(progress.decided)/\(progress.expected) decided · " + NumberText.count(progress.sightings, "sighting")
        if progress.unexpected > 0 { text += " · \(progress.unexpected) unexpected" }
        text += " · " + VerdictWording.seconds(progress.elapsed)
        if let timeout { text += " of " + VerdictWording.seconds(timeout) }
        // Carriage return and erase-line: the line is redrawn in place.
        console.writeToError("\r\u{1B}[K" + text)
    }

    /// Erases the line, so that what follows starts on a clean line.
    func clear() {
        guard enabled else { return }
        let wasVisible = state.withLock { state in
            defer { state.visible = false }
            return state.visible
        }
        if wasVisible { console.writeToError("\r\u{1B}[K") }
    }
}

/// A one-shot pass's progress on a terminal (`OneShotVerification`): a line per pass,
/// erased before the report.
final class VerifyProgress: VerificationObserver {
    private let console: Console
    private let line = Mutex<VerifyProgressLine?>(nil)

    init(console: Console) {
        self.console = console
    }

    func passStarted(policy: VerificationPolicy) {
        line.withLock { $0 = VerifyProgressLine(console: console, timeout: policy.timeout) }
    }

    func progressed(_ progress: VerificationProgress) {
        line.withLock { $0 }?.update(progress)
    }

    func passEnded() {
        line.withLock { $0 }?.clear()
    }
}
