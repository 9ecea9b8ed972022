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
        return assemble(namespace)
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
            count: beacons.count, include: { states[$0].hasID }, key: { beacons[$0].id })
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
            count: beacons.count, include: { states[$0].hasIdentity }, key: { beacons[$0].identity })
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
        func location(_ entry: Int) -> SourceLocation {
            let mark = entries[entry].mark
            let file = beacons[entries[entry].beacon].location.file
            return SourceLocation(file: file, line: Int(mark.line), column: Int(mark.column))
        }
        for (first, repeated) in Duplicates.find(
            count: entries.count, include: { _ in true },
            key: { beacons[entries[$0].beacon].expectedAddress?.value ?? 0 })
        {
            let beacon = beacons[entries[repeated].beacon]
            let firstBeacon = beacons[entries[first].beacon]
            log.emit(
                .duplicateMAC,
                "beacon `\(beacon.id)` expects address \(BluetoothAddress.text(beacon.expectedAddress)), already expected for beacon `\(firstBeacon.id)`",
                at: location(repeated),
                notes: firstNote(location(first), "beacon `\(firstBeacon.id)` expects it here"),
                hint: "one radio has one address; check which beacon is installed where")
            namespace.beaconStates[entries[repeated].beacon].isUsable = false
        }
    }

    /// More beacons on one host than its controller can advertise at once: the extra
    /// ones would never be on the air. Every beacon meant for a host counts, errors or
    /// not: fixing them will not make the host's controller any larger.
    private func checkHostBudgets(_ namespace: Namespace) {
        struct HostLoad {
            var host: String
            var count = 0
            var budget = Int.max
        }
        // One entry per host, found through `slots`. The beacons of a venue usually share
        // their host, so the previous beacon's slot is tried first: most beacons cost a
        // string comparison instead of a hash and a table lookup.
        var loads: [HostLoad] = []
        var slots: [String: Int] = [:]
        var previous: (host: String, slot: Int)?
        func slot(of host: String) -> Int {
            if let previous, previous.host == host { return previous.slot }
            let found: Int
            if let known = slots[host] {
                found = known
            } else {
                found = loads.count
                slots[host] = found
                loads.append(HostLoad(host: host))
            }
            previous = (host, found)
            return found
        }
        for (index, beacon) in namespace.beacons.enumerated() {
            guard let host = beacon.host else { continue }
            // Manifests sharing a host may declare different budgets: the smallest wins,
            // the controller cannot do more than its tightest description says.
            let hostSlot = slot(of: host)
            loads[hostSlot].count += 1
            loads[hostSlot].budget = min(loads[hostSlot].budget, Int(namespace.beaconStates[index].hostBudget))
        }
        // Report each overloaded host once, at its first beacon beyond the budget; without
        // an overloaded host there is nothing to look for.
        guard loads.contains(where: { $0.count > $0.budget }) else { return }
        var seen = [Int](repeating: 0, count: loads.count)
        previous = nil
        for beacon in namespace.beacons {
            guard let host = beacon.host else { continue }
            let hostSlot = slot(of: host)
            let load = loads[hostSlot]
            guard load.count > load.budget else { continue }
            seen[hostSlot] += 1
            guard seen[hostSlot] == load.budget + 1 else { continue }
            log.emit(
                .hostOverCapacity,
                "host `\(host)` is assigned \(load.count) beacons but its controller can advertise \(load.budget) at once; from beacon `\(beacon.id)` on, beacons would stay off the air",
                at: beacon.location,
                hint: "move beacons to another host, or raise `max_beacons_per_host` if this host's controller has more advertising sets")
        }
    }

    /// The fleet: venues without errors, each with its usable beacons, in file order.
    private func assemble(_ namespace: Namespace) -> Fleet {
        var venues: [ResolvedVenue] = []
        var beacons: [ResolvedBeacon] = []
        venues.reserveCapacity(namespace.venues.count)
        beacons.reserveCapacity(namespace.beacons.count)
        for venue in namespace.venues where !venue.isRejected {
            var venueBeacons: [ResolvedBeacon] = []
            venueBeacons.reserveCapacity(venue.beaconRange.count)
            for index in venue.beaconRange where namespace.beaconStates[index].isUsable {
                venueBeacons.append(namespace.beacons[index])
            }
            beacons.append(contentsOf: venueBeacons)
            venues.append(
                ResolvedVenue(
                    id: venue.id ?? "", name: venue.name, fleetName: venue.fleetName, plan: venue.plan,
                    beacons: venueBeacons, location: venue.location))
        }
        let regions = checkRegions(namespace.regions, against: beacons)
        return Fleet(venues: venues, regions: regions, beacons: beacons, files: namespace.files)
    }

    /// Unique region ids, and a warning for a region no beacon of the fleet would enter.
    private func checkRegions(_ entries: [Namespace.RegionEntry], against beacons: [ResolvedBeacon]) -> [ResolvedRegion] {
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

        struct UUIDAndMajor: Hashable {
            var uuid: ProximityUUID
            var major: UInt16
        }
        var uuids = Set<ProximityUUID>()
        var majors = Set<UUIDAndMajor>()
        // The beacons of a venue mostly share uuid and major: a repeat of the previous
        // beacon's pair is already in both sets, and skipping it saves two hashes.
        var previous: UUIDAndMajor?
        for beacon in beacons {
            let pair = UUIDAndMajor(uuid: beacon.identity.uuid, major: beacon.identity.major)
            guard pair != previous else { continue }
            previous = pair
            uuids.insert(pair.uuid)
            majors.insert(pair)
        }
        // Exact identities are only needed for regions that name a minor.
        let identities = regions.contains { $0.region.minor != nil } ? Set(beacons.map(\.identity)) : []
        for resolved in regions {
            let region = resolved.region
            let matches: Bool
            if let major = region.major, let minor = region.minor {
                matches = identities.contains(BeaconIdentity(uuid: region.uuid, major: major, minor: minor))
            } else if let major = region.major {
                matches = majors.contains(UUIDAndMajor(uuid: region.uuid, major: major))
            } else {
                matches = uuids.contains(region.uuid)
            }
            if !matches {
                log.emit(
                    .unmatchedRegion, "region `\(region.identifier)` (\(Self.describe(region))) matches none of the fleet's beacons",
                    at: resolved.location, hint: "check its uuid, major and minor against the beacons")
            }
        }
        return regions
    }

    private static func describe(_ region: BeaconRegion) -> String {
        var text = "\(region.uuid)"
        if let major = region.major { text += " major \(major)" }
        if let minor = region.minor { text += " minor \(minor)" }
        return text
    }
}
