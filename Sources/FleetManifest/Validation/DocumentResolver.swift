import BeaconCore
import YAMLDocument

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
        let hostBudget = draft.maxBeaconsPerHost ?? options.maxBeaconsPerHost
        let base = namespace.beacons.count
        // Take the beacons out of the draft so that each box has a single owner and is
        // completed in place, without a copy.
        var beacons = draft.beacons
        draft.beacons = []
        var states = draft.beaconStates
        draft.beaconStates = []
        var positions = draft.positionMarks[...]
        namespace.venues.reserveCapacity(namespace.venues.count + draft.venues.count)
        for venue in draft.venues {
            let context = VenueContext(venueID: venue.id ?? "", fleetName: fleetName, file: file)
            // What the venue's beacons inherit is the same for all of them: picked once
            // per venue, then each beacon takes the values it does not set itself.
            let inherited = VenueInheritance(venue: venue.settings, fleet: fleet)
            for index in venue.beaconRange {
                let explicit = states[index].explicit
                // Inherit even for a beacon with errors: its identity still takes part in
                // the uniqueness check, so one run reports every problem.
                let outcome = inherit(
                    inherited, into: &beacons[index], explicit: explicit, venue: context, venueID: venue.id)
                let hasIdentity = outcome.identityComplete && explicit.contains(.minor)
                if let position = positions.first, position.beacon == index {
                    checkPosition(of: beacons[index], mark: position.mark, venueID: venue.id, plan: venue.plan)
                    positions = positions.dropFirst()
                }
                // The box was just written: what the cross-file checks need of it is
                // taken now, while it is in the cache.
                if let host = beacons[index].host { namespace.hostLoads.count(host: host, budget: hostBudget) }
                if states[index].hasID { states[index].idHash = Duplicates.hashHalf(beacons[index].id) }
                if hasIdentity { states[index].identityHash = Duplicates.hashHalf(beacons[index].identity) }
                states[index].hasIdentity = hasIdentity
                states[index].isUsable = states[index].isUsable && hasIdentity && outcome.settingsValid
            }
            namespace.venues.append(
                Namespace.VenueEntry(
                    id: venue.id, name: venue.name, context: context, plan: venue.plan, mark: venue.location,
                    beaconRange: (base + venue.beaconRange.lowerBound)..<(base + venue.beaconRange.upperBound),
                    isRejected: venue.isRejected))
        }
        if namespace.addressEntries.isEmpty && base == 0 {
            // The first file's entries are already numbered as the namespace's: take the
            // array instead of building a second one beside it.
            namespace.addressEntries = draft.addressMarks
        } else {
            namespace.addressEntries.reserveCapacity(namespace.addressEntries.count + draft.addressMarks.count)
            for var entry in draft.addressMarks {
                entry.beacon += Int32(truncatingIfNeeded: base)
                namespace.addressEntries.append(entry)
            }
        }
        if namespace.beacons.isEmpty {
            namespace.beacons = beacons
            namespace.beaconStates = states
        } else {
            namespace.beacons.append(contentsOf: beacons)
            namespace.beaconStates.append(contentsOf: states)
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

        /// The value, when the beacon takes it (`own` false: it does not set one itself).
        func value(unless own: Bool) -> Value? {
            if !own, case .value(let value) = self { return value }
            return nil
        }

        var isInvalid: Bool {
            if case .invalid = self { return true }
            return false
        }

        func orBuiltIn(_ builtIn: Value) -> Inherited {
            if case .missing = self { return .value(builtIn) }
            return self
        }
    }

    /// The values a venue's beacons inherit, venue first, then the fleet (`major` only
    /// from the venue), and the built-in radio settings when no level sets them.
    private struct VenueInheritance {
        var uuid: Inherited<ProximityUUID>
        var major: Inherited<UInt16>
        var measuredPower: Inherited<MeasuredPower>
        var intervalMilliseconds: Inherited<Int>
        var txPower: Inherited<Int>
        var host: Inherited<String>
        /// What the venue's beacons inherit of the battery: one object for all of them.
        var inheritedBattery: BeaconBattery?
        /// The radio settings some level wrote invalid: a beacon that does not set them
        /// itself is unusable.
        var invalidSettings: ExplicitFields = []

        init(venue: InheritableSettings, fleet: InheritableSettings) {
            func pick<Value>(_ field: ManifestField, _ venueValue: Value?, _ fleetValue: Value?) -> Inherited<Value> {
                if let venueValue { return .value(venueValue) }
                if venue.invalid.contains(field) { return .invalid }
                if let fleetValue { return .value(fleetValue) }
                if fleet.invalid.contains(field) { return .invalid }
                return .missing
            }
            uuid = pick(.uuid, venue.uuid?.value, fleet.uuid?.value)
            major = pick(.major, venue.major?.value, nil)
            measuredPower = pick(.measuredPower, venue.measuredPower, fleet.measuredPower)
                .orBuiltIn(DocumentResolver.builtInMeasuredPower)
            intervalMilliseconds = pick(.intervalMilliseconds, venue.intervalMilliseconds, fleet.intervalMilliseconds)
                .orBuiltIn(DocumentResolver.builtInIntervalMilliseconds)
            txPower = pick(.txPower, venue.txPower, fleet.txPower).orBuiltIn(DocumentResolver.builtInTxPower)
            host = pick(.host, venue.host, fleet.host)
            let batteryLow = venue.batteryLow ?? fleet.batteryLow
            let batteryType = venue.batteryType ?? fleet.batteryType
            if batteryLow != nil || batteryType != nil {
                inheritedBattery = BeaconBattery(lowThreshold: batteryLow, type: batteryType)
            }
            for (field, isInvalid) in [
                (ExplicitFields.measuredPower, measuredPower.isInvalid),
                (.intervalMilliseconds, intervalMilliseconds.isInvalid), (.txPower, txPower.isInvalid),
                (.host, host.isInvalid),
            ] where isInvalid {
                invalidSettings.insert(field)
            }
        }

        /// What a beacon's `battery` becomes given its own (`nil`: it sets none): `nil` to
        /// keep what it has, the venue's shared object when it sets nothing, or its own
        /// values completed with the venue's.
        func battery(for own: BeaconBattery?) -> BeaconBattery?? {
            guard let inheritedBattery else { return nil }
            guard let own else { return .some(inheritedBattery) }
            if own.lowThreshold != nil && own.type != nil { return nil }
            return .some(BeaconBattery(
                lowThreshold: own.lowThreshold ?? inheritedBattery.lowThreshold, type: own.type ?? inheritedBattery.type,
                telemetryAddress: own.telemetryAddress))
        }
    }

    /// Fills in what the beacon does not set itself and gives it its venue's context:
    /// whether its uuid and major resolved, and whether its radio settings did. A value
    /// no level sets stays as the reader left it, which is the built-in one.
    private func inherit(
        _ inherited: VenueInheritance, into beacon: inout ResolvedBeacon, explicit own: ExplicitFields,
        venue: VenueContext, venueID: String?
    ) -> (identityComplete: Bool, settingsValid: Bool) {
        var identityComplete = true
        var missing: [String] = []

        if !own.contains(.uuid) {
            switch inherited.uuid {
            case .value: break
            case .invalid: identityComplete = false
            case .missing: missing.append("uuid")
            }
        }
        if !own.contains(.major) {
            switch inherited.major {
            case .value: break
            case .invalid: identityComplete = false
            case .missing: missing.append("major")
            }
        }
        let battery = inherited.battery(for: beacon.battery)
        beacon.complete(
            venue: venue,
            uuid: inherited.uuid.value(unless: own.contains(.uuid)),
            major: inherited.major.value(unless: own.contains(.major)),
            measuredPower: inherited.measuredPower.value(unless: own.contains(.measuredPower)),
            intervalMilliseconds: inherited.intervalMilliseconds.value(unless: own.contains(.intervalMilliseconds)),
            txPower: inherited.txPower.value(unless: own.contains(.txPower)),
            host: inherited.host.value(unless: own.contains(.host)),
            battery: battery)
        if !missing.isEmpty {
            reportMissingIdentity(missing, beacon: beacon, venueID: venueID)
            identityComplete = false
        }
        return (identityComplete, inherited.invalidSettings.isSubset(of: own))
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
    /// coverage maps would draw the beacon somewhere it cannot be. The reader asks too, to
    /// keep the marks of only the positions that may warn.
    static func isOffPlan(_ position: PlanPoint, plan: PlanSize?) -> Bool {
        guard let plan else { return position.x < 0 || position.y < 0 }
        return !plan.contains(position)
    }

    private func checkPosition(of beacon: ResolvedBeacon, mark: Mark, venueID: String?, plan: PlanSize?) {
        guard let position = beacon.position, Self.isOffPlan(position, plan: plan) else { return }
        var point: String { "(\(metresText(position.x)), \(metresText(position.y)))" }
        if let plan {
            log.emit(
                .positionOutsidePlan,
                "beacon `\(beacon.id)` at \(point) is outside the plan of venue `\(venueID ?? "")`, which is \(metresText(plan.width)) × \(metresText(plan.height)) m",
                at: location(mark), hint: "positions are metres from the plan's top-left corner")
        } else {
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
