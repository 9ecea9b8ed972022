import BeaconCore

/// The rules that span files: unique venue, beacon and region ids, unique identities and
/// addresses, controller budgets per host, and regions that match something. Then the
/// fleet is assembled from what survived.
struct NamespaceChecks {
    let log: DiagnosticLog
    let options: ValidationOptions

    func run(on namespace: inout Namespace) -> Fleet {
        checkVenueIDs(&namespace)
        checkBeaconIDs(&namespace)
        checkIdentities(&namespace)
        checkAddresses(&namespace)
        checkHostBudgets(namespace)
        // What only the checks needed goes before the fleet is assembled beside everything
        // else: the load's memory peaks there.
        namespace.addressEntries = []
        namespace.hostLoads = HostLoads()
        return assemble(&namespace)
    }

    private func firstNote(_ location: SourceLocation, _ message: String) -> [DiagnosticNote] {
        [DiagnosticNote(location: location, message: message)]
    }

    private func checkVenueIDs(_ namespace: inout Namespace) {
        let venues = namespace.venues
        for (first, repeated) in Duplicates.find(
            count: venues.count, include: { venues[$0].id != nil }, key: { venues[$0].id ?? "" })
        {
            let id = venues[repeated].id ?? ""
            log.emit(
                .duplicateID, "venue id `\(id)` is already used by another venue",
                at: venues[repeated].location,
                notes: firstNote(venues[first].location, "venue `\(id)` is first defined here"),
                hint: "venue ids are unique across every file of the fleet")
            namespace.venues[repeated].isRejected = true
        }
    }

    private func checkBeaconIDs(_ namespace: inout Namespace) {
        let beacons = namespace.beacons
        let states = namespace.beaconStates
        for (first, repeated) in Duplicates.find(
            count: beacons.count, include: { states[$0].hasID }, hash: { states[$0].idHash }, key: { beacons[$0].id })
        {
            log.emit(
                .duplicateID, "beacon id `\(beacons[repeated].id)` is already used by another beacon",
                at: beacons[repeated].location,
                notes: firstNote(beacons[first].location, "beacon `\(beacons[first].id)` is first defined here"),
                hint: "beacon ids are unique across every file of the fleet")
            namespace.beaconStates[repeated].isUsable = false
        }
    }

    /// The most important rule: two beacons with one identity are one beacon to every app.
    private func checkIdentities(_ namespace: inout Namespace) {
        let beacons = namespace.beacons
        let states = namespace.beaconStates
        for (first, repeated) in Duplicates.find(
            count: beacons.count, include: { states[$0].hasIdentity }, hash: { states[$0].identityHash },
            key: { beacons[$0].identity })
        {
            log.emit(
                .duplicateIdentity,
                "beacon `\(beacons[repeated].id)` has identity \(beacons[repeated].identity), already used by beacon `\(beacons[first].id)`; apps cannot tell them apart",
                at: beacons[repeated].location,
                notes: firstNote(beacons[first].location, "beacon `\(beacons[first].id)` has that identity here"),
                hint: "give one of them another minor (or major)")
            namespace.beaconStates[repeated].isUsable = false
        }
    }

    private func checkAddresses(_ namespace: inout Namespace) {
        let entries = namespace.addressEntries
        let beacons = namespace.beacons
        func beacon(_ entry: Int) -> ResolvedBeacon { beacons[Int(entries[entry].beacon)] }
        func location(_ entry: Int) -> SourceLocation {
            let mark = entries[entry].mark
            return SourceLocation(file: beacon(entry).location.file, line: Int(mark.line), column: Int(mark.column))
        }
        for (first, repeated) in Duplicates.find(
            count: entries.count, include: { _ in true }, hash: { entries[$0].hash },
            key: { beacon($0).expectedAddress?.value ?? 0 })
        {
            let repeatedBeacon = beacon(repeated)
            let firstBeacon = beacon(first)
            log.emit(
                .duplicateMAC,
                "beacon `\(repeatedBeacon.id)` expects address \(BluetoothAddress.text(repeatedBeacon.expectedAddress)), already expected for beacon `\(firstBeacon.id)`",
                at: location(repeated),
                notes: firstNote(location(first), "beacon `\(firstBeacon.id)` expects it here"),
                hint: "one radio has one address; check which beacon is installed where")
            namespace.beaconStates[Int(entries[repeated].beacon)].isUsable = false
        }
    }

    /// More beacons on one host than its controller can advertise at once: the extra
    /// ones would never be on the air. The resolver counted them (`HostLoads`).
    private func checkHostBudgets(_ namespace: Namespace) {
        // Report each overloaded host once, at its first beacon beyond the budget; without
        // an overloaded host there is nothing to look for.
        var hostLoads = namespace.hostLoads
        guard hostLoads.loads.contains(where: \.isOverloaded) else { return }
        var seen = [Int](repeating: 0, count: hostLoads.loads.count)
        for beacon in namespace.beacons {
            guard let host = beacon.host else { continue }
            let hostSlot = hostLoads.slot(of: host)
            let load = hostLoads.loads[hostSlot]
            guard load.isOverloaded else { continue }
            seen[hostSlot] += 1
            guard seen[hostSlot] == Int(load.budget) + 1 else { continue }
            log.emit(
                .hostOverCapacity,
                "host `\(host)` is assigned \(load.count) beacons but its controller can advertise \(load.budget) at once; from beacon `\(beacon.id)` on, beacons would stay off the air",
                at: beacon.location,
                hint: "move beacons to another host, or raise `max_beacons_per_host` if this host's controller has more advertising sets")
        }
    }

    /// The fleet: venues without errors, each with its usable beacons, in file order.
    /// Takes the namespace's beacons: when every one of them is in the fleet (the usual
    /// case), that array is the fleet's, without a second one beside it.
    private func assemble(_ namespace: inout Namespace) -> Fleet {
        var venues: [ResolvedVenue] = []
        venues.reserveCapacity(namespace.venues.count)
        // Venues cover the beacons one after the other, so with no venue rejected and
        // every beacon usable, the fleet's beacons are the namespace's, in order.
        let takesEveryBeacon =
            namespace.venues.allSatisfy { !$0.isRejected } && namespace.beaconStates.allSatisfy(\.isUsable)
            && namespace.venues.reduce(0) { $0 + $1.beaconRange.count } == namespace.beacons.count
        var beacons: [ResolvedBeacon] = []
        if takesEveryBeacon {
            // Every beacon is usable: the states have nothing more to say, and their array
            // goes before the venues' arrays are built beside everything else.
            namespace.beaconStates = []
        } else {
            beacons.reserveCapacity(namespace.beacons.count)
        }
        // What regions match is gathered in this pass, which touches every box of the
        // fleet anyway, rather than in one more pass of its own.
        var coverage = RegionCoverage(isNeeded: namespace.regions.contains { $0.region != nil })
        for venue in namespace.venues where !venue.isRejected {
            var venueBeacons: [ResolvedBeacon] = []
            venueBeacons.reserveCapacity(venue.beaconRange.count)
            for index in venue.beaconRange where takesEveryBeacon || namespace.beaconStates[index].isUsable {
                let beacon = namespace.beacons[index]
                coverage.add(beacon.identity)
                venueBeacons.append(beacon)
            }
            if !takesEveryBeacon { beacons.append(contentsOf: venueBeacons) }
            venues.append(
                ResolvedVenue(
                    id: venue.id ?? "", name: venue.name, fleetName: venue.fleetName, plan: venue.plan,
                    beacons: venueBeacons, location: venue.location))
        }
        if takesEveryBeacon {
            beacons = namespace.beacons
            namespace.beacons = []
        }
        let regions = checkRegions(namespace.regions, against: coverage, of: beacons)
        return Fleet(venues: venues, regions: regions, beacons: beacons, files: namespace.files)
    }

    /// The uuids and (uuid, major) pairs of the fleet's beacons, for regions to match.
    private struct RegionCoverage {
        struct UUIDAndMajor: Hashable {
            var uuid: ProximityUUID
            var major: UInt16
        }
        let isNeeded: Bool
        var uuids = Set<ProximityUUID>()
        var majors = Set<UUIDAndMajor>()
        /// The beacons of a venue mostly share uuid and major: a repeat of the previous
        /// beacon's pair is already in both sets, and skipping it saves two hashes.
        private var previous: UUIDAndMajor?

        init(isNeeded: Bool) {
            self.isNeeded = isNeeded
        }

        mutating func add(_ identity: BeaconIdentity) {
            guard isNeeded else { return }
            let pair = UUIDAndMajor(uuid: identity.uuid, major: identity.major)
            guard pair != previous else { return }
            previous = pair
            uuids.insert(pair.uuid)
            majors.insert(pair)
        }
    }

    /// Unique region ids, and a warning for a region no beacon of the fleet would enter.
    private func checkRegions(
        _ entries: [Namespace.RegionEntry], against coverage: RegionCoverage, of beacons: [ResolvedBeacon]
    ) -> [ResolvedRegion] {
        var rejected = Set<Int>()
        for (first, repeated) in Duplicates.find(
            count: entries.count, include: { entries[$0].id != nil }, key: { entries[$0].id ?? "" })
        {
            log.emit(
                .duplicateID, "region id `\(entries[repeated].id ?? "")` is already used by another region",
                at: entries[repeated].location,
                notes: firstNote(entries[first].location, "region `\(entries[first].id ?? "")` is first defined here"),
                hint: "region ids are unique across every file of the fleet")
            rejected.insert(repeated)
        }
        let regions = entries.enumerated().compactMap { index, entry in
            rejected.contains(index) ? nil : entry.region
        }
        guard !regions.isEmpty else { return [] }

        // Exact identities are only needed for regions that name a minor.
        let identities = regions.contains { $0.region.minor != nil } ? Set(beacons.map(\.identity)) : []
        for resolved in regions {
            let region = resolved.region
            let matches: Bool
            if let major = region.major, let minor = region.minor {
                matches = identities.contains(BeaconIdentity(uuid: region.uuid, major: major, minor: minor))
            } else if let major = region.major {
                matches = coverage.majors.contains(RegionCoverage.UUIDAndMajor(uuid: region.uuid, major: major))
            } else {
                matches = coverage.uuids.contains(region.uuid)
            }
            if !matches {
                log.emit(
                    .unmatchedRegion, "region `\(region.identifier)` (\(Self.describe(region))) matches none of the fleet's beacons",
                    at: resolved.location, hint: "check its uuid, major and minor against the beacons")
            }
        }
        checkRegionBudget(regions, of: beacons)
        return regions
    }

    /// More regions than an app can monitor: said once, at the first region past the
    /// budget, with the wildcard regions that would cover them all.
    private func checkRegionBudget(_ regions: [ResolvedRegion], of beacons: [ResolvedBeacon]) {
        let budget = options.regionBudget
        guard regions.count > budget.limit else { return }
        let verdict = budget.check(regions, beacons: beacons)
        log.emit(
            .regionBudget,
            "the fleet has \(regions.count) regions and an app can monitor \(budget.limit) (Core Location's limit is \(RegionBudget.iOSLimit), geofences included)",
            at: regions[budget.limit].location,
            hint: verdict.advice(budget: budget))
    }

    private static func describe(_ region: BeaconRegion) -> String {
        var text = "\(region.uuid)"
        if let major = region.major { text += " major \(major)" }
        if let minor = region.minor { text += " minor \(minor)" }
        return text
    }
}

