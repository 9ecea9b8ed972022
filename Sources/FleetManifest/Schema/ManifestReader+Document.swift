import BeaconCore
import YAMLDocument

/// The top of a manifest: the stream, its single document and the fleet-level fields.
extension ManifestReader {
    /// Reads the file. `nil` when nothing usable came out of it; every reason is reported.
    mutating func readManifest(bytes: UnsafeBufferPointer<UInt8>) -> DocumentDraft? {
        textByteCount = bytes.count
        do {
            return try readStream()
        } catch {
            reportStreamFailure(error, bytes: bytes)
            return nil
        }
    }

    private mutating func readStream() throws(YAMLStreamFailure) -> DocumentDraft? {
        guard try events.advance() == .streamStart else { throw events.unexpectedEvent() }
        guard try events.advance() == .documentStart else {
            report(
                .emptyDocument, "the file holds no YAML document", at: .startOfFile,
                hint: "a manifest starts with `version: 1` and `fleet: <name>`")
            return nil
        }
        var draft = DocumentDraft(expectedTextBytes: textByteCount)
        switch try events.advance() {
        case .mappingStart:
            draft.location = events.mark
            if let tag = events.explicitTag { reportTag(tag) }
            try readDocumentMapping(into: &draft)
        case .scalar where ScalarKind(of: currentToken) == .null:
            report(
                .emptyDocument, "the document is empty", at: events.mark,
                hint: "a manifest starts with `version: 1` and `fleet: <name>`")
            return nil
        case .alias:
            reportAlias()
            return nil
        default:
            report(
                .wrongType,
                "a manifest is a mapping of fields (version, fleet, uuid, venues, …), not \(currentShape)",
                at: events.mark)
            return nil
        }
        guard try events.advance() == .documentEnd else { throw events.unexpectedEvent() }
        if try events.advance() == .documentStart {
            report(
                .multipleDocuments, "a second YAML document starts here; a manifest file holds one",
                at: events.mark, hint: "move each document into a file of its own in the fleet folder")
        }
        return draft
    }

    var currentToken: ScalarToken {
        ScalarToken(bytes: events.scalarBytes, style: events.scalarStyle, mark: events.mark)
    }

    /// How the current event's node reads in a message.
    var currentShape: String {
        switch events.kind {
        case .mappingStart: return "a mapping"
        case .sequenceStart: return "a list"
        case .alias: return "an alias"
        default: return "`\(currentToken.excerpt)`"
        }
    }

    private mutating func readDocumentMapping(into draft: inout DocumentDraft) throws(YAMLStreamFailure) {
        var seen = FieldSet()
        let frame = keyMarks.count
        while true {
            switch try nextKey(in: .document, seen: &seen, frame: frame) {
            case .end:
                if !seen.contains(.version) {
                    report(
                        .missingField, "the manifest has no `version`", at: draft.location,
                        hint: "add `version: 1` at the top of the file")
                }
                if !seen.contains(.fleet) {
                    report(
                        .missingField, "the manifest has no `fleet` name", at: draft.location,
                        hint: "add `fleet: <name>`, e.g. `fleet: jays-donuts`")
                }
                return
            case .skipped:
                continue
            case .field(let field, _):
                switch field {
                case .version:
                    draft.version = try versionValue()
                case .fleet:
                    draft.fleetName = try textValue(of: .fleet)?.value
                case .uuid:
                    try readInheritable(.uuid, into: &draft.settings)
                case .maxBeaconsPerHost:
                    draft.maxBeaconsPerHost = try integerValue(of: .maxBeaconsPerHost, in: 1...240)?.value
                case .defaults:
                    try readDefaults(into: &draft.settings)
                case .venues:
                    try readVenues(into: &draft)
                case .regions:
                    try readRegions(into: &draft)
                default:
                    try skipValue()
                }
            }
        }
    }

    /// The schema version. Only an integer is a version; which integers this build reads
    /// is the loader's decision.
    private mutating func versionValue() throws(YAMLStreamFailure) -> Located<Int>? {
        let expectation = "the integer 1"
        guard let token = try scalarValue(of: .version, expecting: expectation) else { return nil }
        switch ScalarKind(of: token) {
        case .integer(let value):
            return Located(value: value, mark: token.mark)
        case .integerOverflow:
            return Located(value: Int.max, mark: token.mark)
        case let kind:
            reportMismatch(kind, token, field: .version, wants: .integer, expectation: expectation)
            return nil
        }
    }

    private mutating func readDefaults(into settings: inout InheritableSettings) throws(YAMLStreamFailure) {
        guard try mappingStart(of: .defaults, expecting: "a mapping of default values (measured_power, interval_ms, tx_power, host, battery_low, battery)") else {
            return
        }
        var seen = FieldSet()
        let frame = keyMarks.count
        while true {
            switch try nextKey(in: .defaults, seen: &seen, frame: frame) {
            case .end: return
            case .skipped: continue
            case .field(let field, _): try readInheritable(field, into: &settings)
            }
        }
    }

    /// A value that flows down to beacons (uuid, major, radio settings, host). A value
    /// written but invalid is remembered as such, so that beacons relying on it are left
    /// out without a second, misleading "missing" error.
    mutating func readInheritable(_ field: ManifestField, into settings: inout InheritableSettings) throws(YAMLStreamFailure) {
        var valid = true
        switch field {
        case .uuid:
            settings.uuid = try uuidValue(of: .uuid)
            valid = settings.uuid != nil
        case .major:
            settings.major = try uint16Value(of: .major)
            valid = settings.major != nil
        case .measuredPower:
            settings.measuredPower = try measuredPowerValue()
            valid = settings.measuredPower != nil
        case .intervalMilliseconds:
            settings.intervalMilliseconds = try intervalValue()
            valid = settings.intervalMilliseconds != nil
        case .txPower:
            settings.txPower = try txPowerValue()
            valid = settings.txPower != nil
        case .host:
            settings.host = try textValue(of: .host)?.value
            valid = settings.host != nil
        case .batteryLow:
            settings.batteryLow = try batteryLowValue()
            valid = settings.batteryLow != nil
        case .battery:
            settings.batteryType = try textValue(of: .battery).map { BatteryType(name: $0.value) }
            valid = settings.batteryType != nil
        default:
            try skipValue()
        }
        if !valid { settings.invalid.insert(field) }
    }
}
