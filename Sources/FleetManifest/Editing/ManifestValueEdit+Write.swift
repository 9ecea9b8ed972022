extension ManifestValueEdit {
    /// Sets a beacon's measured power in its manifest file, in place: reads the file, edits
    /// the one value, loads the namespace again with the edited text standing in for the
    /// file and checks that it validates and that only this beacon's measured power
    /// changed, then replaces the file atomically. Nothing is written when any step fails.
    ///
    /// `namespace` is the paths the fleet was loaded from (files or folders), so that
    /// uniqueness is checked across the whole fleet as `fleet validate` would.
    public static func writeMeasuredPower(
        _ value: Int8, beaconID: String, namespace: [String], options: ValidationOptions = .init()
    ) throws(ManifestEditError) {
        let before = ManifestLoader.load(paths: namespace, options: options)
        guard before.errorCount == 0 else {
            throw ManifestEditError(file: namespace.joined(separator: ", "), "does not validate; fix it (`beaconctl fleet validate`) before writing to it")
        }
        guard let beacon = before.fleet.beacons.first(where: { $0.id == beaconID }) else {
            throw ManifestEditError(file: namespace.joined(separator: ", "), "has no beacon `\(beaconID)`")
        }
        let file = beacon.location.file
        let original = try readFile(file)
        let edited = try settingMeasuredPower(value, ofBeaconAt: beacon.location, in: original)

        var sources: [(name: String, bytes: [UInt8])] = []
        for path in before.fleet.files {
            sources.append((name: path, bytes: path == file ? edited : try readFile(path)))
        }
        let after = ManifestLoader.load(sources: sources, options: options)
        guard after.errorCount == 0 else {
            let first = after.diagnostics.first { $0.severity == .error }.map { ": \($0)" } ?? ""
            throw ManifestEditError(file: file, "would not validate after the edit\(first); it was left unchanged")
        }
        let expected = before.fleet.beacons.map { candidate in
            var changed = candidate
            if candidate.id == beaconID { changed.measuredPower = .dBm(value) }
            return BeaconValues(changed)
        }
        guard after.fleet.beacons.map(BeaconValues.init) == expected else {
            throw ManifestEditError(file: file, "the edit would change more than the measured power of `\(beaconID)`; it was left unchanged: set `measured_power: \(value)` by hand")
        }
        try replaceAtomically(file, with: edited, expecting: original)
    }

    /// Replaces the file at `path` with `bytes` atomically, refusing when it no longer holds
    /// `original` (see `ManifestFileReplacement.replace`), with messages for a calibration.
    public static func replaceAtomically(_ path: String, with bytes: [UInt8], expecting original: [UInt8]) throws(ManifestEditError) {
        do {
            try ManifestFileReplacement.replace(path, with: bytes, expecting: original)
        } catch {
            switch error.kind {
            case .changedMeanwhile:
                throw ManifestEditError(file: path, "changed on disk while calibrating; it was left unchanged: run the command again")
            case .unreadable:
                throw ManifestEditError(file: path, "\(error.reason); the file was left unchanged")
            case .unwritable:
                throw ManifestEditError(file: path, "cannot write the new version: \(error.reason); the file was left unchanged: check that it and its folder are writable")
            }
        }
    }

    /// A whole file's bytes.
    static func readFile(_ path: String) throws(ManifestEditError) -> [UInt8] {
        do {
            return try ManifestFileReplacement.read(path)
        } catch {
            throw ManifestEditError(file: path, error.reason)
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
