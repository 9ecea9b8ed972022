import BeaconCore
import LECentral

extension RecognitionSpec {
    /// Whether an advertisement and scan response (their AD structures) show every part
    /// of this recognition (Core Supplement v11 Part A 1.1 service UUIDs, 1.2 local name,
    /// 1.4 manufacturer data).
    public func matches(_ structures: [ADStructure]) -> Bool {
        if let advertisedService, !Self.lists(advertisedService, in: structures) { return false }
        if let namePrefix {
            // 0x08 Shortened / 0x09 Complete Local Name.
            let names = structures.filter { $0.type == 0x08 || $0.type == 0x09 }.map { String(decoding: $0.data, as: UTF8.self) }
            guard names.contains(where: { $0.hasPrefix(namePrefix) }) else { return false }
        }
        if let manufacturerID {
            // The company identifier leads manufacturer data, little-endian.
            let companies = structures.filter { $0.type == ADStructure.manufacturerSpecificType && $0.data.count >= 2 }
                .map { UInt16($0.data[0]) | UInt16($0.data[1]) << 8 }
            guard companies.contains(manufacturerID) else { return false }
        }
        return true
    }

    /// 0x02/0x03 list 16-bit UUIDs, 0x06/0x07 128-bit ones, each little-endian.
    private static func lists(_ uuid: AttributeUUID, in structures: [ADStructure]) -> Bool {
        let width = uuid.shortValue == nil ? 16 : 2
        let types: Set<UInt8> = width == 2 ? [0x02, 0x03] : [0x06, 0x07]
        let wire = uuid.littleEndian
        return structures.contains { structure in
            guard types.contains(structure.type), structure.data.count % width == 0 else { return false }
            return stride(from: 0, to: structure.data.count, by: width).contains { Array(structure.data[$0..<($0 + width)]) == wire }
        }
    }
}

/// The declarative profiles beaconctl ships, and finding one by name or by what a beacon
/// shows. A profile is shipped only when its vendor publishes the whole table (byte orders,
/// units, TX power levels): docs/profiles.md lists the tables looked at and what each lacks.
public enum ShippedProfiles {
    /// Each shipped profile's file text, by name. Empty: no vendor table found so far is
    /// complete (docs/profiles.md, "Vendor tables").
    static let texts: [(name: String, text: String)] = []

    /// The shipped definitions (each checked by the tests to read without a problem).
    public static let all: [ProfileDefinition] = texts.compactMap { entry in
        try? ProfileDefinitionReader.read(Array(entry.text.utf8), file: "shipped:\(entry.name)").get()
    }

    public static func named(_ name: String) -> ProfileDefinition? {
        all.first { $0.name == name }
    }

    /// The definitions among `candidates` whose recognition the advertisement matches.
    public static func recognised(_ structures: [ADStructure], among candidates: [ProfileDefinition]) -> [ProfileDefinition] {
        candidates.filter { $0.recognition?.matches(structures) == true }
    }

    /// The definitions among `candidates` whose configuration service the beacon offers.
    public static func offering(_ services: [GATTService], among candidates: [ProfileDefinition]) -> [ProfileDefinition] {
        candidates.filter { definition in services.contains { $0.uuid == definition.service } }
    }
}
