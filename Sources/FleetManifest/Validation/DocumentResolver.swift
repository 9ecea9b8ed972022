import BeaconCore

/// Applies inheritance to one document (fleet `defaults` and `uuid` → venue → beacon) and
/// adds its venues, beacons and regions to the namespace. Runs once the document is
/// complete, because YAML lets fleet-level keys come after `venues`.
struct DocumentResolver {
    let file: String
    let log: DiagnosticLog
    let options: ValidationOptions

    /// The built-in values when no level sets one.
    static let builtInMeasuredPower = MeasuredPower.auto
    static let builtInIntervalMilliseconds = 100
    static let builtInTxPower = 0

    func location(_ mark: Mark) -> SourceLocation {
        SourceLocation(file: file, line: Int(mark.line), column: Int(mark.column))
    }

    func resolve(_ draft: consuming DocumentDraft, into namespace: inout Namespace) {
        let fleetName = draft.fleetName ?? ""
        let fleet = draft.settings
        let hostBudget = Int32(clamping: draft.maxBeaconsPerHost ?? options.maxBeaconsPerHost)
        let base = namespace.beacons.count
        // Take the beacons out of the draft so that each box has a single owner and is
        // completed in place, without a copy.
        var beacons = draft.beacons
        draft.beacons = []
        var positions = draft.positionMarks[...]
        for venue in draft.venues {
            let context = VenueContext(venueID: venue.id ?? "", fleetName: fleetName, file: file)
            for index in venue.beaconRange {
                let notes = draft.beaconNotes[index]
                // Inherit even for a beacon with errors: its identity still takes part in
                // the uniqueness check, so one run reports every problem.
                let outcome = inherit(
                    into: &beacons[index], explicit: notes.explicit, venueID: venue.id,
                    venue: venue.settings, fleet: fleet)
                beacons[index].setVenue(context)
                let hasIdentity = outcome.identityComplete && notes.explicit.contains(.minor)
                if let position = positions.first, position.beacon == index {
                    checkPosition(of: beacons[index], mark: position.mark, venueID: venue.id, plan: venue.plan)
                    positions = positions.dropFirst()
                }
                namespace.beaconStates.append(
                    Namespace.BeaconState(
                        hasID: notes.hasID, hasIdentity: hasIdentity,
                        isUsable: !notes.isRejected && hasIdentity && outcome.settingsValid,
                        hostBudget: hostBudget))
            }
            namespace.venues.append(
                Namespace.VenueEntry(
                    id: venue.id, name: venue.name, fleetName: fleetName, plan: venue.plan,
                    location: location(venue.location),
                    beaconRange: (base + venue.beaconRange.lowerBound)..<(base + venue.beaconRange.upperBound),
                    isRejected: venue.isRejected))
        }
        if namespace.addressEntries.isEmpty && base == 0 {
            // The first file's entries are already numbered as the namespace's: take the
            // array instead of building a second one beside it.
            namespace.addressEntries = draft.addressMarks
        } else {
            namespace.addressEntries.reserveCapacity(namespace.addressEntries.count + draft.addressMarks.count)
            for entry in draft.addressMarks {
                namespace.addressEntries.append((base + entry.beacon, entry.mark))
            }
        }
        if namespace.beacons.isEmpty {
            namespace.beacons = beacons
        } else {
            namespace.beacons.append(contentsOf: beacons)
        }
        for region in draft.regions {
            namespace.regions.append(resolveRegion(region, fleet: fleet, fleetName: fleetName))
        }
    }

    /// What a beacon ends up with for one inheritable value.
    private enum Inherited<Value> {
        case value(Value)
        /// Some level wrote the value but it was invalid (and reported there).
        case invalid
        case missing
    }

    private func pick<Value>(
        _ field: ManifestField, venue: Value?, _ venueSettings: InheritableSettings,
        fleet: Value?, _ fleetSettings: InheritableSettings
    ) -> Inherited<Value> {
        if let venue { return .value(venue) }
        if venueSettings.invalid.contains(field) { return .invalid }
        if let fleet { return .value(fleet) }
        if fleetSettings.invalid.contains(field) { return .invalid }
        return .missing
    }

    /// Fills in what the beacon does not set itself: whether its uuid and major resolved,
    /// and whether its radio settings did.
    private func inherit(
        into beacon: inout ResolvedBeacon, explicit own: ExplicitFields, venueID: String?,
        venue settings: InheritableSettings, fleet: InheritableSettings
    ) -> (identityComplete: Bool, settingsValid: Bool) {
        var identityComplete = true
        var usable = true
        var missing: [String] = []

        if !own.contains(.uuid) {
            switch pick(.uuid, venue: settings.uuid?.value, settings, fleet: fleet.uuid?.value, fleet) {
            case .value(let uuid): beacon.identity.uuid = uuid
            case .invalid: identityComplete = false
            case .missing: missing.append("uuid")
            }
        }
        if !own.contains(.major) {
            switch pick(.major, venue: settings.major?.value, settings, fleet: nil, fleet) {
            case .value(let major): beacon.identity.major = major
            case .invalid: identityComplete = false
            case .missing: missing.append("major")
            }
        }
        if !missing.isEmpty {
            reportMissingIdentity(missing, beacon: beacon, venueID: venueID)
            identityComplete = false
        }
        if !own.contains(.measuredPower) {
            switch pick(.measuredPower, venue: settings.measuredPower, settings, fleet: fleet.measuredPower, fleet) {
            case .value(let power): beacon.measuredPower = power
            case .invalid: usable = false
            case .missing: beacon.measuredPower = Self.builtInMeasuredPower
            }
        }
        if !own.contains(.intervalMilliseconds) {
            switch pick(.intervalMilliseconds, venue: settings.intervalMilliseconds, settings, fleet: fleet.intervalMilliseconds, fleet) {
            case .value(let interval): beacon.intervalMilliseconds = interval
            case .invalid: usable = false
            case .missing: beacon.intervalMilliseconds = Self.builtInIntervalMilliseconds
            }
        }
        if !own.contains(.txPower) {
            switch pick(.txPower, venue: settings.txPower, settings, fleet: fleet.txPower, fleet) {
            case .value(let power): beacon.txPower = power
            case .invalid: usable = false
            case .missing: beacon.txPower = Self.builtInTxPower
            }
        }
        if !own.contains(.host) {
            switch pick(.host, venue: settings.host, settings, fleet: fleet.host, fleet) {
            case .value(let host): beacon.host = host
            case .invalid: usable = false
            case .missing: beacon.host = nil
            }
        }
        return (identityComplete, usable)
    }

    private func reportMissingIdentity(_ missing: [String], beacon: ResolvedBeacon, venueID: String?) {
        let venueName = venueID.map { "venue `\($0)`" } ?? "its venue"
        let what = missing.map { "`\($0)`" }.joined(separator: " or ")
        let places =
            missing.contains("uuid")
            ? "on the beacon, on \(venueName), or at the top of the file"
            : "on the beacon or on \(venueName)"
        log.emit(
            .missingIdentity, "beacon `\(beacon.id)` has no \(what): its identity is incomplete",
            at: beacon.location, hint: "set \(missing.joined(separator: " and ")) \(places)")
    }

    /// A position off the venue's plan (or negative when there is no plan) is a warning:
    /// coverage maps would draw the beacon somewhere it cannot be.
    private func checkPosition(of beacon: ResolvedBeacon, mark: Mark, venueID: String?, plan: PlanSize?) {
        guard let position = beacon.position else { return }
        var point: String { "(\(metresText(position.x)), \(metresText(position.y)))" }
        if let plan {
            guard !plan.contains(position) else { return }
            log.emit(
                .positionOutsidePlan,
                "beacon `\(beacon.id)` at \(point) is outside the plan of venue `\(venueID ?? "")`, which is \(metresText(plan.width)) × \(metresText(plan.height)) m",
                at: location(mark), hint: "positions are metres from the plan's top-left corner")
        } else if position.x < 0 || position.y < 0 {
            log.emit(
                .positionOutsidePlan, "beacon `\(beacon.id)` is at negative coordinates \(point)",
                at: location(mark), hint: "positions are metres from the plan's top-left corner, never negative")
        }
    }

    private func resolveRegion(_ draft: RegionDraft, fleet: InheritableSettings, fleetName: String) -> Namespace.RegionEntry {
        var entry = Namespace.RegionEntry(id: draft.id, region: nil, location: location(draft.location))
        let name = draft.id.map { "region `\($0)`" } ?? "a region"
        if let minor = draft.minor, draft.major == nil {
            log.emit(
                .minorWithoutMajor, "\(name) gives a `minor` without a `major`",
                at: location(minor.mark),
                hint: "a region matches a UUID, a UUID and major, or a UUID, major and minor (as CLBeaconRegion does); add `major:`")
            return entry
        }
        guard !draft.isRejected, let id = draft.id else { return entry }
        let uuid: ProximityUUID
        if let own = draft.uuid {
            uuid = own.value
        } else if let inherited = fleet.uuid {
            uuid = inherited.value
        } else {
            if !fleet.invalid.contains(.uuid) {
                log.emit(
                    .missingField, "\(name) has no `uuid` and the manifest sets none at the top",
                    at: entry.location, hint: "set `uuid:` on the region or at the top of the file")
            }
            return entry
        }
        guard let region = BeaconRegion(identifier: id, uuid: uuid, major: draft.major, minor: draft.minor?.value) else {
            return entry
        }
        entry.region = ResolvedRegion(
            region: region, notifyOnEntry: draft.notifyOnEntry, notifyOnExit: draft.notifyOnExit,
            notifyStateOnStart: draft.notifyStateOnStart, fleetName: fleetName, location: entry.location)
        return entry
    }
}
