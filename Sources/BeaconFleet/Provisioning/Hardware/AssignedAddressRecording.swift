import BeaconCore
import FleetManifest

/// `provision --hardware --assign nearest`'s write-back: the address a manifest beacon was
/// given becomes its `mac:` in the manifest, once the beacon's read-back matched.
public enum AssignedAddressRecording {
    /// Writes `mac:` for `beacon` into the manifest files of `namespace`, read as they are
    /// now: refused when the beacon's identity changed there since the run started (the
    /// address would land on another). Returns the problem in words, `nil` when written.
    public static func record(_ address: BluetoothAddress, of beacon: ResolvedBeacon, namespace: [String]) -> String? {
        let loaded = ManifestLoader.load(paths: namespace, keepingSnapshots: true)
        guard let now = loaded.fleet.beacons.first(where: { $0.id == beacon.id }), now.identity == beacon.identity else {
            return "`\(beacon.id)` changed in the manifest during the run; add mac: \"\(address)\" by hand if it is still this beacon"
        }
        do {
            try ManifestValueEdit.writeAddress(address, beaconID: beacon.id, in: loaded)
            return nil
        } catch {
            return error.description
        }
    }
}
