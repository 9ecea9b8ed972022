import BeaconCore

extension ManifestValueEdit {
    /// Loads `namespace` (files or folders) and sets the beacon's measured power at once;
    /// see `writeMeasuredPower(_:beaconID:in:options:)`.
    public static func writeMeasuredPower(
        _ value: Int8, beaconID: String, namespace: [String], options: ValidationOptions = .init()
    ) throws(ManifestEditError) {
        let loaded = ManifestLoader.load(paths: namespace, options: options, keepingSnapshots: true)
        try writeMeasuredPower(value, beaconID: beaconID, in: loaded, options: options)
    }

    /// Sets a beacon's measured power in its manifest file, in place, working from `loaded`:
    /// the namespace as it was read (with its snapshots) before the measurement. Edits the
    /// one value in the bytes read then, loads the namespace again with the edited text
    /// standing in for the file and checks that it validates and that only this beacon's
    /// measured power changed, then replaces the file atomically, refusing when it changed
    /// on disk since it was read (a value measured for one identity must not land on
    /// another). Nothing is written when any step fails.
    public static func writeMeasuredPower(
        _ value: Int8, beaconID: String, in loaded: ManifestLoadResult, options: ValidationOptions = .init()
    ) throws(ManifestEditError) {
        try write(
            beaconID: beaconID, in: loaded, options: options, what: "the measured power", byHand: "measured_power: \(value)",
            edit: { location, bytes throws(ManifestEditError) in try settingMeasuredPower(value, ofBeaconAt: location, in: bytes) },
            change: { $0.measuredPower = .dBm(value) })
    }

    /// Sets a beacon's `mac:` in its manifest file, in place, as `writeMeasuredPower` sets
    /// its measured power: checked to change that one value only, written atomically,
    /// refused when the file changed since `loaded` was read.
    public static func writeAddress(
        _ address: BluetoothAddress, beaconID: String, in loaded: ManifestLoadResult, options: ValidationOptions = .init()
    ) throws(ManifestEditError) {
        try write(
            beaconID: beaconID, in: loaded, options: options, what: "the address", byHand: "mac: \"\(address)\"",
            edit: { location, bytes throws(ManifestEditError) in try settingAddress(address, ofBeaconAt: location, in: bytes) },
            change: { $0.expectedAddress = address })
    }

    private static func write(
        beaconID: String, in loaded: ManifestLoadResult, options: ValidationOptions, what: String, byHand: String,
        edit: (SourceLocation, [UInt8]) throws(ManifestEditError) -> [UInt8], change: (inout ResolvedBeacon) -> Void
    ) throws(ManifestEditError) {
        let files = loaded.fleet.files.isEmpty ? "the manifest" : loaded.fleet.files.joined(separator: ", ")
        guard loaded.errorCount == 0 else {
            throw ManifestEditError(file: files, "does not validate; fix it (\(UserCommand.fleetValidate)) before writing to it")
        }
        guard let beacon = loaded.fleet.beacons.first(where: { $0.id == beaconID }) else {
            throw ManifestEditError(file: files, "has no beacon `\(beaconID)`")
        }
        var sources: [(name: String, bytes: [UInt8])] = []
        for path in loaded.fleet.files {
            guard let snapshot = loaded.snapshots[path] else {
                throw ManifestEditError(file: path, "was loaded without keeping what was read, so a change since could not be noticed; nothing was written")
            }
            sources.append((name: path, bytes: snapshot.bytes))
        }
        let file = beacon.location.file
        guard let original = loaded.snapshots[file] else {
            throw ManifestEditError(file: file, "was loaded without keeping what was read, so a change since could not be noticed; nothing was written")
        }
        let edited = try edit(beacon.location, original.bytes)
        sources = sources.map { (name: $0.name, bytes: $0.name == file ? edited : $0.bytes) }
        let after = ManifestLoader.load(sources: sources, options: options)
        guard after.errorCount == 0 else {
            let first = after.diagnostics.first { $0.severity == .error }.map { ": \($0)" } ?? ""
            throw ManifestEditError(file: file, "would not validate after the edit\(first); it was left unchanged")
        }
        let expected = loaded.fleet.beacons.map { candidate in
            var changed = candidate
            if candidate.id == beaconID { change(&changed) }
            return BeaconValues(changed)
        }
        guard after.fleet.beacons.map(BeaconValues.init) == expected else {
            throw ManifestEditError(file: file, "the edit would change more than \(what) of `\(beaconID)`; it was left unchanged: set `\(byHand)` by hand")
        }
        try replaceAtomically(original, with: edited)
    }

    /// Replaces the file `original` was read from with `bytes` (see
    /// `ManifestFileReplacement.replace`), with messages for a calibration.
    public static func replaceAtomically(_ original: ManifestFileSnapshot, with bytes: [UInt8]) throws(ManifestEditError) {
        do {
            try ManifestFileReplacement.replace(original, with: bytes)
        } catch {
            let path = original.path
            switch error.kind {
            case .changedMeanwhile:
                throw ManifestEditError(file: path, "changed on disk since it was read (\(error.reason)); it was left unchanged: run the command again")
            case .unreadable:
                throw ManifestEditError(file: path, "\(error.reason); the file was left unchanged")
            case .hardLinked(let links):
                throw ManifestEditError(file: path, "has \(links) hard links (names of the same file); replacing it would leave the other \(links - 1) with the old text, so it was left unchanged: make the other names symbolic links to it (ln -sf) or remove them, then run the command again")
            case .ownerNotKept(let user, let group):
                throw ManifestEditError(file: path, "cannot give the new version its owner (user \(user), group \(group)): \(error.reason); it was left unchanged: run the command as that user or as root")
            case .unwritable:
                throw ManifestEditError(file: path, "cannot write the new version: \(error.reason); the file was left unchanged: check that it and its folder are writable")
            }
        }
    }
}

/// What an edit must not change about a beacon: every resolved value except where its
/// mapping starts (an inserted line moves the beacons below it).
private struct BeaconValues: Equatable {
    var beacon: ResolvedBeacon

    init(_ beacon: ResolvedBeacon) {
        var withoutLocation = beacon
        withoutLocation.location = SourceLocation(file: beacon.location.file, line: 0, column: 0)
        self.beacon = withoutLocation
    }
}
