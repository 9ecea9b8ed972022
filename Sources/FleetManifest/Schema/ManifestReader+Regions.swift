import YAMLDocument

/// Regions to monitor, in the sense of CoreLocation's `CLBeaconRegion`.
extension ManifestReader {
    mutating func readRegions(into draft: inout DocumentDraft) throws(YAMLStreamFailure) {
        guard try listStart(of: .regions, expecting: "a list of regions") else { return }
        while try events.advance() != .sequenceEnd {
            guard try isMappingItem("each region must be a mapping (id, uuid, major, minor, …)") else { continue }
            draft.regions.append(try readRegion(at: events.mark))
        }
    }

    private mutating func readRegion(at mark: Mark) throws(YAMLStreamFailure) -> RegionDraft {
        let errorsBefore = log.errorCount
        var region = RegionDraft(location: mark)
        var seen = FieldSet()
        let frame = keyMarks.count
        while true {
            switch try nextKey(in: .region, seen: &seen, frame: frame) {
            case .end:
                if !seen.contains(.id) {
                    report(.missingField, "a region has no `id`", at: mark, hint: "give every region an `id`, unique across the fleet")
                }
                region.isRejected = log.errorCount > errorsBefore
                return region
            case .skipped:
                continue
            case .field(let field, _):
                switch field {
                case .id: region.id = try textValue(of: .id)?.value
                case .uuid: region.uuid = try uuidValue(of: .uuid)
                case .major: region.major = try uint16Value(of: .major)?.value
                case .minor: region.minor = try uint16Value(of: .minor)
                case .notifyOnEntry: region.notifyOnEntry = try boolValue(of: field) ?? true
                case .notifyOnExit: region.notifyOnExit = try boolValue(of: field) ?? true
                case .notifyStateOnStart: region.notifyStateOnStart = try boolValue(of: field) ?? false
                default: try skipValue()
                }
            }
        }
    }
}
