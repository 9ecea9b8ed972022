import BeaconCore
import Logging

/// `monitor --exec`: a program run on every region event. It learns about the event from
/// `BEACONCTL_EVENT` (enter, exit, state), `BEACONCTL_REGION`, `BEACONCTL_STATE` (inside,
/// outside, unknown), `BEACONCTL_BEACONS` (`UUID/major/minor`, comma-separated),
/// `BEACONCTL_TIME` (seconds, the monitor's clock), `BEACONCTL_BEACON_COUNT` (how many
/// identities were heard; `BEACONCTL_BEACONS` lists at most `StayBeacons.listLimit`) and
/// `BEACONCTL_RECEIVERS` (the receivers that heard them, strongest first, comma-separated).
final class MonitorEventHook: Sendable {
    private let program: ProgramHook
    var arguments: [String] { program.arguments }

    /// `nil` when `command` has no words.
    init?(command: String, environment: [String: String], logger: Logger) {
        guard let program = ProgramHook(command: command, environment: environment, logger: logger, label: "beaconctl.monitor-exec") else {
            return nil
        }
        self.program = program
    }

    /// The environment a run gets: this process's, plus the event.
    static func variables(for event: RegionEvent) -> [String: String] {
        [
            "BEACONCTL_EVENT": event.kind.rawValue,
            "BEACONCTL_REGION": event.regionIdentifier,
            "BEACONCTL_STATE": event.state.rawValue,
            "BEACONCTL_BEACONS": event.beacons.map(\.description).joined(separator: ","),
            "BEACONCTL_TIME": String(event.time.seconds),
            "BEACONCTL_BEACON_COUNT": "\(event.beaconCount)\(event.beaconCountIsLowerBound ? "+" : "")",
            // Names come from the air or a broker: control characters (a NUL no environment
            // can carry) are escaped, as on a terminal.
            "BEACONCTL_RECEIVERS": event.receivers.map { MonitorOutput.printable($0.receiver) }.joined(separator: ","),
        ]
    }

    /// Queues a run for `event`.
    func run(for event: RegionEvent) {
        program.run(
            Self.variables(for: event), subject: "\(event.kind.rawValue) \(MonitorOutput.printable(event.regionIdentifier))",
            nulAdvice: "give the region an identifier without control characters")
    }

    /// Waits for the queued runs to finish (at most `ProgramHook.stopWait` when stopping).
    func finish(stopping: Bool = false) async {
        await program.finish(stopping: stopping)
    }
}
