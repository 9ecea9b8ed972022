import BeaconCore
import BeaconFleet
import Foundation
import HCI
import Synchronization

/// Prints what the advertiser reports: an aligned table and plain lines for people, or one
/// JSON object per line (`started`, `warning`, `interrupted`, `restart-failed`, `stopped`).
/// The table and the stop line go to standard output; warnings and faults in text form to
/// standard error.
final class AdvertiseEventPrinter: Sendable {
    let format: AdvertiseFormat
    let console: Console
    let style: Style
    let errorStyle: Style
    /// `--duration`, for the line under the table.
    let duration: Double?
    private let state = Mutex<State>(State())

    private struct State {
        var firstStart: ContinuousClock.Instant?
        var signal: String?
    }

    init(format: AdvertiseFormat, console: Console, style: Style, errorStyle: Style, duration: Double? = nil) {
        self.duration = duration
        self.format = format
        self.console = console
        self.style = style
        self.errorStyle = errorStyle
    }

    /// Records which signal asked for the stop, for the stop line.
    func noteSignal(_ name: String) {
        state.withLock { $0.signal = name }
    }

    func print(_ event: AdvertiserEvent) {
        if case .started = event {
            state.withLock { if $0.firstStart == nil { $0.firstStart = .now } }
        }
        switch format {
        case .text: printText(event)
        case .json: printJSON(event)
        }
    }

    private var uptime: Duration? {
        state.withLock { $0.firstStart.map { ContinuousClock.now - $0 } }
    }

    // MARK: Text

    private func printText(_ event: AdvertiserEvent) {
        switch event {
        case .started(let session):
            for line in Self.table(for: session, style: style) { console.line(line) }
            if session.restartCount == 0 {
                let until = duration.map { "for \(NumberText.plain($0)) s, or until SIGINT (Ctrl-C) or SIGTERM" }
                    ?? "until SIGINT (Ctrl-C) or SIGTERM"
                console.line(style.dim("Advertising \(until)."))
            }
        case .warning(let message):
            console.errorLine(errorStyle.warning("warning") + ": " + message)
        case .interrupted(let fault, let retryIn):
            if let retryIn {
                console.errorLine(errorStyle.error("off the air") + ": \(fault); restarting in \(Self.seconds(retryIn))")
            } else {
                console.errorLine(errorStyle.error("off the air") + ": \(fault)")
            }
        case .restartFailed(let reason, let attempt, let retryIn):
            console.errorLine(
                errorStyle.warning("warning") + ": attempt \(attempt) to bring the beacons up failed: \(reason); "
                    + "next attempt in \(Self.seconds(retryIn))")
        case .stopped(let reason):
            let cause = state.withLock { $0.signal }.map { "\($0) received" } ?? reason.description
            let ran = uptime.map { " after \(Self.seconds($0))" } ?? ""
            console.line(style.success("Stopped") + ": beacons off the air (\(cause))\(ran).")
        }
    }

    /// The heading line and the table of accepted beacons.
    static func table(for session: AdvertisingSession, style: Style) -> [String] {
        let controller = session.controller
        let count = "\(NumberText.count(session.beacons.count, "beacon"))"
        let familyText = session.family == .extended
            ? "extended advertising, one set per beacon"
            : "legacy advertising"
        var lines: [String] = []
        let restarted = session.restartCount > 0 ? " again (restart \(session.restartCount))" : ""
        lines.append(
            "Advertising \(count)\(restarted) on \(controller.name): Bluetooth \(controller.version.hciVersion), "
                + "\(controller.manufacturer), \(familyText).")
        if let slot = session.rotationSlot, let effective = session.effectiveInterval {
            lines.append(
                "The \(session.beacons.count) beacons take turns on one advertisement: each is on the air for "
                    + "\(milliseconds(slot)) in every \(milliseconds(effective)), so its effective interval is \(milliseconds(effective)).")
        }
        let header = ["BEACON", "UUID", "MAJOR", "MINOR", "INTERVAL", "TX POWER", "MEASURED POWER", "ADDRESS", "SET"]
        let rows = session.beacons.map { beacon -> [String] in
            [
                beacon.beaconID ?? "-",
                beacon.identity.uuid.description,
                String(beacon.identity.major),
                String(beacon.identity.minor),
                beacon.interval.description,
                "\(beacon.txPower) dBm",
                "\(beacon.measuredPower) dBm" + (beacon.measuredPowerIsEstimated ? " (auto)" : ""),
                "\(beacon.address) (\(beacon.addressType == .random ? "random" : "public"))",
                beacon.handle.map { String($0.rawValue) } ?? "-",
            ]
        }
        // Numbers are right-aligned, text left-aligned.
        let rightAligned: Set<Int> = [2, 3, 4, 5, 6, 8]
        let widths = header.indices.map { column in
            ([header[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
        }
        func render(_ cells: [String]) -> String {
            cells.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - cells[column].count)
                return rightAligned.contains(column) ? padding + cells[column] : cells[column] + padding
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        lines.append(style.bold(render(header)))
        lines += rows.map(render)
        return lines
    }

    /// `1.5 s`, `12 s`.
    static func seconds(_ duration: Duration) -> String {
        let total = duration.secondsValue
        if total < 10 { return String(format: "%.1f s", total) }
        return "\(Int64(saturating: total)) s"
    }

    /// `100 ms`, `152.5 ms`.
    static func milliseconds(_ duration: Duration) -> String {
        let value = duration.secondsValue * 1000
        return value.rounded() == value ? "\(Int64(saturating: value)) ms" : String(format: "%.1f ms", value)
    }

    // MARK: JSON lines

    private func printJSON(_ event: AdvertiserEvent) {
        let object: AdvertiseJSONEvent
        switch event {
        case .started(let session):
            object = .started(session)
        case .warning(let message):
            object = .message(event: "warning", message: message)
        case .interrupted(let fault, let retryIn):
            object = .interrupted(reason: fault.description, retryInSeconds: retryIn.map(Self.secondsValue))
        case .restartFailed(let reason, let attempt, let retryIn):
            object = .restartFailed(reason: reason, attempt: attempt, retryInSeconds: Self.secondsValue(retryIn))
        case .stopped(let reason):
            let cause = state.withLock { $0.signal }
            object = .stopped(reason: reason, signal: cause, uptimeSeconds: uptime.map(Self.secondsValue))
        }
        guard let line = try? JSONOutput.line(object) else { return }
        console.line(line)
    }

    static func secondsValue(_ duration: Duration) -> Double {
        (duration.secondsValue * 1000).rounded() / 1000
    }
}
