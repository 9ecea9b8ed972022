import BeaconCore
import BeaconFleet
import Synchronization

/// What one `scan` run accumulates, shared by the task reading sightings and the one
/// drawing the table: the identity filter, the ranger and the output format.
final class ScanRun: Sendable {
    let region: BeaconRegion?
    let table: ScanTable
    let writesSightings: Bool
    private let state: Mutex<State>

    private struct State {
        var ranger: BeaconRanger
        var sightingCount = 0
        var latestTime: Double?
        var firstTime: Double?
    }

    init(region: BeaconRegion?, ranging: RangingConfiguration, table: ScanTable, writesSightings: Bool) {
        self.region = region
        self.table = table
        self.writesSightings = writesSightings
        self.state = Mutex(State(ranger: BeaconRanger(configuration: ranging)))
    }

    /// Takes a sighting that passes the filter into ranging, and writes it as a JSON line
    /// when the output is JSON lines, its time moved by `writtenTimeOffset` (`--unix-time`;
    /// ranging keeps the scan's clock). Returns whether it passed.
    @discardableResult
    func take(_ sighting: Sighting, writtenTimeOffset: Double = 0) -> Bool {
        if let region, !region.matches(sighting.identity) { return false }
        state.withLock { state in
            state.ranger.add(sighting)
            state.sightingCount += 1
            state.latestTime = max(state.latestTime ?? sighting.time, sighting.time)
            state.firstTime = min(state.firstTime ?? sighting.time, sighting.time)
        }
        if writesSightings {
            var written = sighting
            written.time += writtenTimeOffset
            Console.current.line(SightingJSONLines.encode(written))
        }
        return true
    }

    var sightingCount: Int { state.withLock { $0.sightingCount } }
    /// The newest sighting time: "now" for a recorded input.
    var latestTime: Double? { state.withLock { $0.latestTime } }
    var firstTime: Double? { state.withLock { $0.firstTime } }

    func snapshot(at time: Double) -> [RangedBeacon] {
        state.withLock { state in
            state.ranger.forgetStale(at: time)
            return state.ranger.snapshot(at: time)
        }
    }
}
