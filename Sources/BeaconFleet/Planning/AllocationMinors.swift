import BeaconCore

/// Hands out minors zone by zone: consecutive `minorStep`s within a zone, `zoneGap` free
/// slots after each, new zones aligned when asked, never a minor the major already holds.
struct MinorAllocator {
    let request: AllocationRequest
    let uuid: ProximityUUID
    var state: NamespaceState
    /// Where the next new zone starts, per major.
    var cursors: [UInt16: Int] = [:]

    init(request: AllocationRequest, uuid: ProximityUUID, state: NamespaceState) {
        self.request = request
        self.uuid = uuid
        self.state = state
    }

    var step: Int { request.minorStep }

    private func owner(_ minor: Int, major: UInt16) -> String? {
        state.identityOwners[BeaconIdentity(uuid: uuid, major: major, minor: UInt16(minor))]
    }

    private func firstCursor(major: UInt16) -> Int {
        if let first = request.firstMinor { return Int(first) }
        let used = state.identityOwners.keys.filter { $0.uuid == uuid && $0.major == major }.map { Int($0.minor) }
        guard let highest = used.max() else { return 1 }
        return highest + step * (1 + request.zoneGap)
    }

    private func aligned(_ value: Int) -> Int {
        guard let alignment = request.zoneAlignment else { return value }
        let remainder = value % alignment
        return remainder == 0 ? value : value + alignment - remainder
    }

    /// `count` free minors for a zone of `major`. An existing zone (`continuing` = its
    /// highest minor) grows into the gap after it; a new zone starts at the cursor.
    mutating func allocate(
        count: Int, zone: String?, major: UInt16, continuing: UInt16?, notes: inout [String]
    ) throws(AllocationError) -> [UInt16] {
        let isNewZone = continuing == nil
        var candidate: Int
        if let continuing {
            candidate = Int(continuing) + step
        } else {
            candidate = aligned(cursors[major] ?? firstCursor(major: major))
        }
        var minors: [UInt16] = []
        var skipped: [String] = []
        while minors.count < count {
            guard candidate <= Int(UInt16.max) else { throw .noFreeMinor(major: major, zone: zone) }
            if let owner = owner(candidate, major: major) {
                skipped.append("\(candidate) (`\(owner)`)")
            } else {
                minors.append(UInt16(candidate))
                state.identityOwners[BeaconIdentity(uuid: uuid, major: major, minor: UInt16(candidate))] = "another new beacon"
            }
            candidate += step
        }
        if !skipped.isEmpty {
            let place = zone.map { "zone `\($0)`" } ?? "the new beacons"
            let list = skipped.prefix(5).joined(separator: ", ") + (skipped.count > 5 ? ", …" : "")
            notes.append("\(place) skipped minors already in use in major \(major): \(list)")
        }
        // The next new zone starts after this one and its gap; a zone that grew past the
        // cursor pushes it on too, so the next zone does not start inside it.
        if let last = minors.last, isNewZone || cursors[major].map({ $0 <= Int(last) }) == true {
            cursors[major] = max(cursors[major] ?? 0, Int(last) + step * (1 + request.zoneGap))
        }
        return minors
    }
}
