import BeaconFleet
import HCI

/// What a live scan lost before its output saw it, as one count: the reports the scan's own
/// queues dropped (`LiveScan.lostCount`) and the sightings its reading dropped because the
/// run fell behind (`LiveScan.read`'s `drops`). `scan --metrics`' lost series and the
/// warning at the end both read it, so the two never disagree.
struct ScanLoss: Sendable {
    /// The scan's own count, read when asked.
    private let beforeReading: @Sendable () -> Int
    /// What the reading dropped: handed to `LiveScan.read`.
    let reading = DropCounter()

    init(_ scan: LiveScan) {
        self.init { scan.lostCount }
    }

    init(beforeReading: @escaping @Sendable () -> Int) {
        self.beforeReading = beforeReading
    }

    var count: Int { beforeReading() + reading.value }
}
