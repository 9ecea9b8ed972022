import BeaconFleet
import Synchronization

/// When each step of a provisioning run began, as the provisioner announced it (its events
/// and its per-beacon phases), on this process's continuous clock.
final class PhaseTimeline: Sendable {
    enum Mark: Sendable {
        case discovery, discovered, verification, end
        case phase(String, HardwareProvisioningPhase)
        case finished
    }

    private let marks = Mutex<[(ContinuousClock.Instant, Mark)]>([])

    func note(_ mark: Mark) {
        let now = ContinuousClock.now
        marks.withLock { $0.append((now, mark)) }
    }

    func note(_ event: HardwareProvisioningEvent) {
        switch event {
        case .discovering: note(.discovery)
        case .heard: note(.discovered)
        case .connecting: break  // the `connecting` phase says it, per beacon
        case .finished: note(.finished)
        case .verifying: note(.verification)
        }
    }

    /// Where the time went: seconds per step, summed over the beacons; the whole run.
    struct Breakdown {
        var discovery = 0.0
        var phases: [HardwareProvisioningPhase: Double] = [:]
        /// Between beacons and between discovery and the first connection: matching, the run's own bookkeeping.
        var between = 0.0
        var verification = 0.0
        var total = 0.0
    }

    func breakdown() -> Breakdown {
        let marks = marks.withLock { $0 }
        var result = Breakdown()
        guard let first = marks.first?.0, let last = marks.last?.0 else { return result }
        result.total = seconds(last - first)
        // Each stretch between two marks belongs to what the first of them began.
        enum Stretch { case discovery, phase(HardwareProvisioningPhase), between, verification }
        var current = Stretch.between
        var previous = first
        for (instant, mark) in marks {
            let elapsed = seconds(instant - previous)
            switch current {
            case .discovery: result.discovery += elapsed
            case .phase(let phase): result.phases[phase, default: 0] += elapsed
            case .between: result.between += elapsed
            case .verification: result.verification += elapsed
            }
            switch mark {
            case .discovery: current = .discovery
            case .discovered, .end, .finished: current = .between
            case .phase(_, let phase): current = .phase(phase)
            case .verification: current = .verification
            }
            previous = instant
        }
        return result
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
