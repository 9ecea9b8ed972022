import BeaconCore
import FleetManifest

/// Tells which manifest beacon a telemetry reading belongs to, and never guesses: by the
/// identity a gateway published with it; else by its address, when the manifest names it
/// as a beacon's `telemetry_mac` or `mac`, or when exactly one beacon of the pass was heard
/// advertising its identity from it (a beacon that interleaves TLM with its iBeacon frame
/// sends both from one address). A reading no rule places, or that two beacons could
/// claim, is unpaired: counted, judged for nobody.
///
/// Sparse: it holds only the addresses it pairs by (the manifest's, and those heard when
/// asked), and finds identities through the caller's own table, so that a fleet without
/// telemetry pays nothing per beacon for it.
public struct TelemetryPairing: Sendable {
    private var byAddress: [BluetoothAddress: Int] = [:]
    /// Addresses two beacons claim: readings from them are unpaired.
    private var ambiguous: Set<BluetoothAddress> = []

    /// `beacons` in pass order; `heardFrom`, when given, the addresses each beacon (by
    /// index) was heard advertising its identity from.
    public init(beacons: [ExpectedBeacon], heardFrom: ((Int) -> [BluetoothAddress])? = nil) {
        var named: [BluetoothAddress: Int] = [:]
        var namedTwice: Set<BluetoothAddress> = []
        func name(_ address: BluetoothAddress, _ index: Int) {
            if let other = named[address], other != index { namedTwice.insert(address) } else { named[address] = index }
        }
        for (index, beacon) in beacons.enumerated() {
            if let address = beacon.battery?.telemetryAddress { name(address, index) }
            if let address = beacon.expectedAddress { name(address, index) }
        }
        var heard: [BluetoothAddress: Int] = [:]
        var heardTwice: Set<BluetoothAddress> = []
        if let heardFrom {
            for index in beacons.indices {
                for address in heardFrom(index) where named[address] == nil {
                    if let other = heard[address], other != index { heardTwice.insert(address) } else { heard[address] = index }
                }
            }
        }
        byAddress = named.merging(heard) { manifest, _ in manifest }
        ambiguous = namedTwice.union(heardTwice)
    }

    /// The index of the beacon `reading` belongs to, or `nil` (unpaired). `identityIndex`
    /// finds a beacon by its identity (the caller's table).
    public func beacon(for reading: TelemetryReading, identityIndex: (BeaconIdentity) -> Int?) -> Int? {
        if let identity = reading.identity { return identityIndex(identity) }
        guard let address = reading.address, !ambiguous.contains(address) else { return nil }
        return byAddress[address]
    }
}
