/// Every key the schema (v1) knows, across all its mappings.
enum ManifestField: UInt8, CaseIterable {
    case version, fleet, uuid, maxBeaconsPerHost, defaults, venues, regions
    case id, name, zone, major, minor, measuredPower, intervalMilliseconds, txPower
    case host, plan, beacons, position, mac, width, height
    case notifyOnEntry, notifyOnExit, notifyStateOnStart

    /// The key as written in a manifest.
    var key: String {
        switch self {
        case .version: return "version"
        case .fleet: return "fleet"
        case .uuid: return "uuid"
        case .maxBeaconsPerHost: return "max_beacons_per_host"
        case .defaults: return "defaults"
        case .venues: return "venues"
        case .regions: return "regions"
        case .id: return "id"
        case .name: return "name"
        case .zone: return "zone"
        case .major: return "major"
        case .minor: return "minor"
        case .measuredPower: return "measured_power"
        case .intervalMilliseconds: return "interval_ms"
        case .txPower: return "tx_power"
        case .host: return "host"
        case .plan: return "plan"
        case .beacons: return "beacons"
        case .position: return "position"
        case .mac: return "mac"
        case .width: return "width"
        case .height: return "height"
        case .notifyOnEntry: return "notify_on_entry"
        case .notifyOnExit: return "notify_on_exit"
        case .notifyStateOnStart: return "notify_state_on_start"
        }
    }

    /// The keys as UTF-8 bytes grouped by length, to compare libyaml's buffers without
    /// making a String per key: the length picks one to five candidates.
    private static let keysByLength: [[(bytes: [UInt8], field: ManifestField)]] = {
        var table = [[(bytes: [UInt8], field: ManifestField)]](repeating: [], count: 32)
        for field in allCases { table[field.key.utf8.count].append((Array(field.key.utf8), field)) }
        return table
    }()

    /// The field a key names; `nil` for a key the schema lacks.
    init?(key: UnsafeBufferPointer<UInt8>) {
        guard key.count < Self.keysByLength.count else { return nil }
        for candidate in Self.keysByLength[key.count] where candidate.bytes.elementsEqual(key) {
            self = candidate.field
            return
        }
        return nil
    }

    init?(key: String) {
        guard let field = Self.allCases.first(where: { $0.key == key }) else { return nil }
        self = field
    }

    /// This field's bit in a `FieldSet`.
    var bit: UInt32 { 1 << UInt32(rawValue) }
}

/// A set of fields as a bit mask: which keys a mapping has shown so far.
struct FieldSet {
    private(set) var bits: UInt32 = 0
    func contains(_ field: ManifestField) -> Bool { bits & field.bit != 0 }
    mutating func insert(_ field: ManifestField) { bits |= field.bit }
}

/// The mappings of the schema, each with the fields it allows.
enum ManifestMappingKind: Int, CaseIterable {
    case document, defaults, venue, plan, beacon, region

    var fields: [ManifestField] {
        switch self {
        case .document: return [.version, .fleet, .uuid, .maxBeaconsPerHost, .defaults, .venues, .regions]
        case .defaults: return [.measuredPower, .intervalMilliseconds, .txPower, .host]
        case .venue:
            return [.id, .name, .uuid, .major, .measuredPower, .intervalMilliseconds, .txPower, .host,
                    .plan, .beacons]
        case .plan: return [.width, .height]
        case .beacon:
            return [.id, .name, .zone, .uuid, .major, .minor, .measuredPower, .intervalMilliseconds,
                    .txPower, .host, .position, .mac]
        case .region:
            return [.id, .uuid, .major, .minor, .notifyOnEntry, .notifyOnExit, .notifyStateOnStart]
        }
    }

    /// How messages name this mapping: "a beacon", "the top level".
    var phrase: String {
        switch self {
        case .document: return "the top level of a manifest"
        case .defaults: return "`defaults`"
        case .venue: return "a venue"
        case .plan: return "a venue's `plan`"
        case .beacon: return "a beacon"
        case .region: return "a region"
        }
    }

    /// Allowed fields as bit masks, indexed by kind: checked once per key while reading.
    private static let allowedMasks: [UInt32] = allCases.map { kind in
        kind.fields.reduce(0) { $0 | $1.bit }
    }

    func allows(_ field: ManifestField) -> Bool {
        Self.allowedMasks[rawValue] & field.bit != 0
    }
}
