/// Every key the schema (v1) knows, across all its mappings.
enum ManifestField: UInt8, CaseIterable {
    case version, fleet, uuid, maxBeaconsPerHost, defaults, venues, regions
    case id, name, zone, major, minor, measuredPower, intervalMilliseconds, txPower
    case host, plan, beacons, position, mac, width, height
    case notifyOnEntry, notifyOnExit, notifyStateOnStart
    case batteryLow, battery, telemetryMac

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
        case .batteryLow: return "battery_low"
        case .battery: return "battery"
        case .telemetryMac: return "telemetry_mac"
        }
    }

    /// The keys in an open-addressing table, to compare libyaml's buffers without making
    /// a String per key: a key's length and first and last bytes pick a slot, and one byte
    /// comparison (rarely two) settles it. Keys are read once per line of a manifest, so
    /// this is on the hot path.
    private struct KeyTable {
        /// Every key's UTF-8 bytes, one after the other.
        var bytes: [UInt8] = []
        /// Per slot: the field's raw value, or `empty`.
        var slots = [UInt8](repeating: KeyTable.empty, count: KeyTable.size)
        /// Per field: where its key starts in `bytes`, and its length.
        var spans: [(start: Int, count: Int)] = []

        static let size = 64
        static let empty = UInt8.max

        init() {
            for field in ManifestField.allCases {
                let key = Array(field.key.utf8)
                spans.append((bytes.count, key.count))
                bytes.append(contentsOf: key)
                var slot = Self.slot(count: key.count, first: key[0], last: key[key.count - 1])
                while slots[slot] != Self.empty { slot = (slot + 1) % Self.size }
                slots[slot] = field.rawValue
            }
        }

        static func slot(count: Int, first: UInt8, last: UInt8) -> Int {
            (count &* 7 &+ Int(first) &* 3 &+ Int(last)) & (size - 1)
        }

        /// Keys are at most 21 bytes: comparing them here costs less than a call to
        /// `memcmp` per key.
        static func equal(_ lhs: UnsafePointer<UInt8>, _ rhs: UnsafePointer<UInt8>, _ count: Int) -> Bool {
            var offset = 0
            while offset < count, lhs[offset] == rhs[offset] { offset += 1 }
            return offset == count
        }

        func field(_ key: UnsafeBufferPointer<UInt8>) -> ManifestField? {
            guard let first = key.first, let last = key.last else { return nil }
            var slot = Self.slot(count: key.count, first: first, last: last)
            while slots[slot] != Self.empty {
                let raw = slots[slot]
                let span = spans[Int(raw)]
                if span.count == key.count, bytes.withUnsafeBufferPointer({ Self.equal($0.baseAddress! + span.start, key.baseAddress!, span.count) }) {
                    return ManifestField(rawValue: raw)
                }
                slot = (slot + 1) % Self.size
            }
            return nil
        }
    }

    private static let keyTable = KeyTable()

    /// The field a key names; `nil` for a key the schema lacks.
    init?(key: UnsafeBufferPointer<UInt8>) {
        guard let field = Self.keyTable.field(key) else { return nil }
        self = field
    }

    init?(key: String) {
        guard let field = Self.allCases.first(where: { $0.key == key }) else { return nil }
        self = field
    }

    /// This field's bit in a `FieldSet`.
    @inline(__always) var bit: UInt32 { 1 << UInt32(rawValue) }
}

/// A set of fields as a bit mask: which keys a mapping has shown so far. Its members are
/// asked once or twice per key read; they are forced inline, where the optimizer left
/// them as calls.
struct FieldSet {
    private(set) var bits: UInt32 = 0
    @inline(__always) func contains(_ field: ManifestField) -> Bool { bits & field.bit != 0 }
    @inline(__always) mutating func insert(_ field: ManifestField) { bits |= field.bit }
}

/// The mappings of the schema, each with the fields it allows.
enum ManifestMappingKind: Int, CaseIterable {
    case document, defaults, venue, plan, beacon, region

    var fields: [ManifestField] {
        switch self {
        case .document: return [.version, .fleet, .uuid, .maxBeaconsPerHost, .defaults, .venues, .regions]
        case .defaults: return [.measuredPower, .intervalMilliseconds, .txPower, .host, .batteryLow, .battery]
        case .venue:
            return [.id, .name, .uuid, .major, .measuredPower, .intervalMilliseconds, .txPower, .host,
                    .batteryLow, .battery, .plan, .beacons]
        case .plan: return [.width, .height]
        case .beacon:
            return [.id, .name, .zone, .uuid, .major, .minor, .measuredPower, .intervalMilliseconds,
                    .txPower, .host, .position, .mac, .batteryLow, .battery, .telemetryMac]
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

    @inline(__always) func allows(_ field: ManifestField) -> Bool {
        Self.allowedMasks[rawValue] & field.bit != 0
    }
}
