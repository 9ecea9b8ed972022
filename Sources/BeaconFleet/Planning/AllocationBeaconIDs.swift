import FleetManifest

/// Beacon ids for new beacons: `VENUE-ZONE` for a lone beacon of a new zone, else
/// `VENUE-ZONE-N` numbered on from the zone's existing beacons; never an id in use.
struct BeaconIDAllocator {
    let venueID: String
    var taken: [String: SourceLocation]
    var given = Set<String>()

    init(venueID: String, state: NamespaceState) {
        self.venueID = venueID
        taken = state.beaconIDs
    }

    mutating func take(_ ids: [String]) throws(AllocationError) -> [String] {
        for id in ids {
            if id.isEmpty { throw .badSetting("a beacon id must not be empty") }
            if let location = taken[id] { throw .beaconIDTaken(id, location: location) }
            guard given.insert(id).inserted else { throw .beaconIDRepeated(id) }
        }
        return ids
    }

    mutating func generate(count: Int, zone: String?, existingInZone: Int) -> [String] {
        let base = venueID + "-" + (zone.map(Self.slug) ?? "beacon")
        if count == 1, existingInZone == 0, isFree(base) {
            given.insert(base)
            return [base]
        }
        var ids: [String] = []
        var number = existingInZone + 1
        while ids.count < count {
            let id = "\(base)-\(number)"
            if isFree(id) {
                ids.append(id)
                given.insert(id)
            }
            number += 1
        }
        return ids
    }

    private func isFree(_ id: String) -> Bool { taken[id] == nil && !given.contains(id) }

    /// A zone name as an id part: lower case, runs of anything but letters and digits
    /// turned into one hyphen ("Drive-thru Window" → "drive-thru-window").
    static func slug(_ zone: String) -> String {
        var result = ""
        var pendingHyphen = false
        for character in zone.lowercased() {
            if character.isLetter || character.isNumber {
                if pendingHyphen && !result.isEmpty { result.append("-") }
                pendingHyphen = false
                result.append(character)
            } else {
                pendingHyphen = true
            }
        }
        return result.isEmpty ? "zone" : result
    }
}
