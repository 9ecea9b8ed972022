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
        /// A recording's clock, each receiver placed on it (as verify and monitor place them).
        var timeline = SightingTimeline()

        /// `sighting` into ranging at `time` on the scan's clock.
        mutating func range(_ sighting: Sighting, at time: Double) {
            var placed = sighting
            placed.time = time
            ranger.add(placed)
            sightingCount += 1
            latestTime = max(latestTime ?? time, time)
            firstTime = min(firstTime ?? time, time)
        }
    }

    init(region: BeaconRegion?, ranging: RangingConfiguration, table: ScanTable, writesSightings: Bool) {
        self.region = region
        self.table = table
        self.writesSightings = writesSightings
        self.state = Mutex(State(ranger: BeaconRanger(configuration: ranging)))
    }

    /// Takes a live sighting that passes the filter into ranging, and writes it as a JSON
    /// line when the output is JSON lines, moved to Unix time by `writtenTimeOffset`
    /// (`--unix-time`; ranging keeps the scan's clock). Returns whether it passed.
    @discardableResult
    func take(_ sighting: Sighting, writtenTimeOffset: Double? = nil) -> Bool {
        if let region, !region.matches(sighting.identity) { return false }
        state.withLock { state in state.range(sighting, at: sighting.time) }
        write(sighting, timeOffset: writtenTimeOffset)
        return true
    }

    /// Takes a recorded sighting: ranged at its time on the scan's clock, where each
    /// receiver keeps the time base its first sighting gave it (`SightingTimeline`), so that
    /// recordings of several boxes appended together neither jump the clock nor age each
    /// other's beacons; written unchanged. Returns false, taking nothing, for a sighting
    /// past `duration` seconds of that clock from the first one taken.
    func takeRecorded(_ sighting: Sighting, duration: Double?) -> Bool {
        let matches = region?.matches(sighting.identity) ?? true
        let isPastDuration = state.withLock { state -> Bool in
            // Beyond the receivers told apart, a receiver on an elapsed clock is written but
            // not ranged.
            let time = state.timeline.place(sighting)?.time
            if let duration, let first = state.firstTime, let time, time > first + duration { return true }
            if matches, let time { state.range(sighting, at: time) }
            return false
        }
        guard !isPastDuration else { return false }
        if matches { write(sighting, timeOffset: nil) }
        return true
    }

    private func write(_ sighting: Sighting, timeOffset: Double?) {
        guard writesSightings else { return }
        let written = timeOffset.map { sighting.onUnixTime(offset: $0) } ?? sighting
        Console.current.line(SightingJSONLines.encode(written))
    }

    var sightingCount: Int { state.withLock { $0.sightingCount } }
    /// The newest sighting time: "now" for a recorded input.
    var latestTime: Double? { state.withLock { $0.latestTime } }

    /// The beacon `sighting` belongs to as ranged now (the newest time taken), or `nil`
    /// when it was not taken.
    func ranged(_ sighting: Sighting) -> RangedBeacon? {
        state.withLock { state in
            guard let now = state.latestTime else { return nil }
            let key = BeaconRanger.Key(identity: sighting.identity, address: sighting.address, receiver: sighting.receiver)
            return state.ranger.beacon(key, at: now)
        }
    }

    /// The ranging table as of `time` on the scan's clock.
    func snapshot(at time: Double) -> [RangedBeacon] {
        state.withLock { state in
            state.ranger.forgetStale(at: time)
            return state.ranger.snapshot(at: time)
        }
    }
}
