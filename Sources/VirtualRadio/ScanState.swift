import HCI

/// A controller's scanner: its parameters, whether it runs, and what it already reported.
struct ScanState {
    /// Scanning on one PHY: interval and window in microseconds.
    struct PHYScan: Hashable {
        var type: ScanType
        var intervalMicroseconds: UInt64
        var windowMicroseconds: UInt64
    }

    /// Which report event this scanner sends: set by the command family that enabled it.
    enum ReportFormat {
        case legacy
        case extended
    }

    /// LE Set Scan Parameters defaults (Core v5.4 Vol 4 Part E 7.8.10): passive, 10 ms
    /// interval, 10 ms window.
    static let defaultPHYScan = PHYScan(type: .passive, intervalMicroseconds: 10_000, windowMicroseconds: 10_000)

    var le1M: PHYScan? = ScanState.defaultPHYScan
    var leCoded: PHYScan?
    var ownAddressType: OwnAddressType = .public
    var format: ReportFormat = .legacy

    var isEnabled = false
    var startTime = AirTime.zero
    var filterDuplicates: ScanDuplicateFilter = .disabled
    /// Extended scanning: scan for this long (0 = until disabled) …
    var durationMicroseconds: UInt64 = 0
    /// … every period (0 = once).
    var periodMicroseconds: UInt64 = 0
    /// Bumped at every enable and disable so that a queued scan timeout of an earlier run is ignored.
    var generation: UInt32 = 0
    /// Reports already sent, for duplicate filtering.
    var reported: Set<DuplicateKey> = []
    /// The scan period `reported` belongs to (mode "reset each period").
    var reportedPeriod: UInt64 = 0

    /// Packets are duplicates when advertiser address, PDU type and data are all equal.
    /// Controllers differ in what they compare; this is the conservative choice: a beacon
    /// that changes its data (a legacy rotation of several identities) is reported again.
    struct DuplicateKey: Hashable {
        var address: UInt64
        var addressType: UInt8
        var eventType: UInt16
        var data: [UInt8]
    }

    /// The primary channel the scanner listens on, when a whole PDU of `duration` µs
    /// starting at `time` on `phy` falls inside one of its scan windows; `nil` otherwise.
    ///
    /// Every scan interval starts a window on the next of channels 37, 38, 39
    /// (Core v5.4 Vol 6 Part B 4.4.3); intervals are counted from the start of scanning, or
    /// of the current period when scanning repeats periodically. Each PHY is scanned on its
    /// own schedule, as if the controller had a receiver per PHY: a simplification where
    /// real controllers alternate.
    func listeningChannel(at time: AirTime, durationMicroseconds duration: UInt64, phy: LEPhy) -> UInt8? {
        guard isEnabled, time >= startTime, let scan = phy == .leCoded ? leCoded : le1M,
            scan.intervalMicroseconds > 0
        else { return nil }
        var elapsed = time.microseconds - startTime.microseconds
        if periodMicroseconds > 0 {
            elapsed %= periodMicroseconds
            guard elapsed + duration <= durationMicroseconds else { return nil }
        }
        let intervalIndex = elapsed / scan.intervalMicroseconds
        let offset = elapsed % scan.intervalMicroseconds
        guard offset + duration <= scan.windowMicroseconds else { return nil }
        return 37 + UInt8(intervalIndex % 3)
    }

    /// The scan period `time` falls in (0 without periodic scanning).
    func period(at time: AirTime) -> UInt64 {
        guard periodMicroseconds > 0, time >= startTime else { return 0 }
        return (time.microseconds - startTime.microseconds) / periodMicroseconds
    }

    /// Records `key` and says whether it is new, applying the duplicate filter mode.
    mutating func shouldReport(_ key: @autoclosure () -> DuplicateKey, at time: AirTime) -> Bool {
        switch filterDuplicates {
        case .disabled:
            return true
        case .enabled:
            return reported.insert(key()).inserted
        case .enabledResetEachPeriod:
            let current = period(at: time)
            if current != reportedPeriod {
                reported.removeAll(keepingCapacity: true)
                reportedPeriod = current
            }
            return reported.insert(key()).inserted
        }
    }
}
