import BeaconCore
import HCI

extension CalibrationSampler {
    /// How often the collection looks at the clock between sightings; it ends on `seconds`
    /// itself either way (the pass's deadline, `PassClocking.scan`).
    static let collectionTick: Duration = .milliseconds(250)

    /// The samples of `identity` a live scan hears in its first `seconds`, through the one
    /// live loop (`LiveScan.read`) on the scan's clock, so a silent air ends the collection
    /// on time. A failed scan throws; cancelling the calling task ends the collection with
    /// what was heard.
    public static func collect(_ identity: BeaconIdentity, from scan: LiveScan, for seconds: Double) async throws -> CalibrationSampler {
        var collected = CalibrationSampler(identity: identity)
        do {
            // Seconds the calibration accepted (`--seconds`: positive and bounded).
            try await scan.read(until: Duration(checkedSeconds: seconds), every: collectionTick) { sighting, _ in
                collected.add(sighting)
            } tick: { _ in }
        } catch is CancellationError {
            // Cancelled: what was heard so far.
        }
        return collected
    }
}
