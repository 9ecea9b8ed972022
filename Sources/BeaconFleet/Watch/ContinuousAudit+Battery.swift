import BeaconCore

extension ContinuousAudit {
    /// Telemetry addresses remembered with the beacon they pair with: more than the beacons
    /// and other telemetry senders a venue's air carries; beyond, a new address is looked up
    /// each time, never remembered (memory stays bounded, docs/operations.md "Bounds").
    static let maximumPairedAddresses = 65_536

    /// Takes a telemetry reading placed at `time` on the audit's clock by the pass (by its
    /// receiver's clock where the pass has placed that receiver, else where the clock stood
    /// when it was handed over), never later than the audit's clock, paired with its beacon
    /// (`TelemetryPairing`'s rules, the addresses of the beacons heard lately), and judged.
    /// Returns the battery crossings it caused. Readings no rule pairs are counted.
    /// Returns the battery crossings it caused (told in Unix time too, once known). Readings
    /// no rule pairs are counted.
    public mutating func observe(_ reading: TelemetryReading, at time: PassTime) -> [AuditBatteryEvent] {
        let placed = min(time, now ?? time)
        guard let index = pairedBeacon(for: reading) else {
            batteries.countUnpaired()
            return []
        }
        let day = Self.day(of: unixTime(at: placed) ?? placed.sinceOrigin)
        guard var event = batteries.take(reading, beacon: index, at: placed.seconds, day: day) else { return [] }
        event.unixTime = unixSeconds(at: placed)
        return [event]
    }

    /// The day a moment falls on (`sinceEpoch`: since the Unix epoch when the audit can tell
    /// Unix time, else since its own clock's origin, a recording on an elapsed clock).
    static func day(of sinceEpoch: Duration) -> Int {
        // Whole days, rounded down (before the origin too); far within Int for any pass time.
        let (seconds, attoseconds) = sinceEpoch.components
        let wholeSeconds = attoseconds < 0 ? seconds - 1 : seconds
        return Int(wholeSeconds >= 0 ? wholeSeconds / 86_400 : (wholeSeconds - 86_399) / 86_400)
    }

    private mutating func pairedBeacon(for reading: TelemetryReading) -> Int? {
        if let index = manifestPairing.beacon(for: reading, identityIndex: beaconIndex(of:)) { return index }
        guard reading.identity == nil, let address = reading.address else { return nil }
        if let known = heardPairing[address] { return known }
        // An address no beacon was heard from (another vendor's beacon in the mall) is looked
        // up again only a silence later: a walk of every beacon per reading of it would cost
        // more the larger the fleet.
        let now = self.now ?? .origin
        if let retry = unpairedRetry[address], now < retry { return nil }
        let heard = beaconsHeard(from: address)
        let index = heard.count == 1 ? heard[0] : nil
        if heard.isEmpty {
            if unpairedRetry.count >= Self.maximumPairedAddresses { unpairedRetry = unpairedRetry.filter { $0.value > now } }
            if unpairedRetry.count < Self.maximumPairedAddresses { unpairedRetry[address] = now + configuration.silence }
        } else if heardPairing.count < Self.maximumPairedAddresses {
            heardPairing[address] = index
            unpairedRetry[address] = nil
        }
        return index
    }

    /// The beacons' batteries as the audit stands on them (the last reading in Unix time too,
    /// once known), in manifest order.
    public var batteryStandings: [BatteryStanding] {
        batteries.standings.map { standing in
            var standing = standing
            // The battery watch keeps its readings' times in seconds, as a pass time's
            // `seconds` wrote them: read back to the nanosecond.
            standing.lastReadingUnixTime = unixSeconds(at: standing.lastReading.flatMap(PassTime.init(checkedSeconds:)))
            return standing
        }
    }

    /// Telemetry readings taken, and those paired with no beacon.
    public var telemetryCounts: TelemetryCounts {
        TelemetryCounts(received: batteries.received, unpaired: batteries.unpaired)
    }

    /// Starts from the battery histories a state file kept, by beacon id.
    public mutating func restoreBatteryHistories(_ saved: [String: [BatteryForecast.DailyMedian]]) -> Int {
        batteries.restore(saved)
    }
}
