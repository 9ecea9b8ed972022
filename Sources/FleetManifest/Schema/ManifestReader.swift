import BeaconCore
import YAMLDocument

/// Reads one manifest file's YAML events straight into a `DocumentDraft`, reporting every
/// problem on the way. There is no node tree: each event is looked at once, scalars are
/// compared as bytes and turned into values on the spot.
///
/// The schema itself nests six levels, so the recursion here is bounded by the schema;
/// whatever the schema does not know is skipped iteratively (`YAMLEventSource.skipNode`), however deep.
struct ManifestReader: ~Copyable {
    var events: YAMLEventSource
    let log: DiagnosticLog
    let file: String
    /// Keys seen in the mappings being read, innermost last, for "first occurrence" notes
    /// on duplicate keys. Reused across mappings, so reading allocates nothing per key.
    var keyMarks: [(field: ManifestField, mark: Mark)] = []
    /// Beacons start with this context (the file); resolution gives them their venue's.
    let fileContext: VenueContext
    /// The size of the text being read, for the draft's first reservation.
    var textByteCount = 0

    init(file: String, bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, log: DiagnosticLog) {
        events = YAMLEventSource(bytes: bytes, maxDepth: maxDepth)
        self.log = log
        self.file = file
        fileContext = VenueContext(venueID: "", fleetName: "", file: file)
        keyMarks.reserveCapacity(64)
    }

    func location(_ mark: Mark) -> SourceLocation {
        SourceLocation(file: file, line: Int(mark.line), column: Int(mark.column))
    }

    func report(
        _ code: DiagnosticCode, _ message: @autoclosure () -> String, at mark: Mark,
        notes: @autoclosure () -> [DiagnosticNote] = [], hint: @autoclosure () -> String? = nil
    ) {
        log.emit(code, message(), at: location(mark), notes: notes(), hint: hint())
    }

    // MARK: Mappings

    /// One step through a mapping of the schema.
    enum KeyStep {
        /// A known, allowed, first-time key; the value is the next event.
        case field(ManifestField, Mark)
        /// A key that was reported (unknown, repeated, not a plain name); its value is skipped.
        case skipped
        /// The mapping ended.
        case end
    }

    /// Reads the next key of a mapping of `kind`. `frame` is `keyMarks.count` when the
    /// mapping started.
    mutating func nextKey(
        in kind: ManifestMappingKind, seen: inout FieldSet, frame: Int
    ) throws(YAMLStreamFailure) -> KeyStep {
        switch try events.advance() {
        case .mappingEnd:
            // Dropping from the end is a count update; `removeSubrange` went through the
            // general replacement, at every mapping's end.
            keyMarks.removeLast(keyMarks.count - frame)
            return .end
        case .scalar:
            let mark = events.mark
            let bytes = events.scalarBytes
            guard let field = ManifestField(key: bytes), kind.allows(field) else {
                let key = ScalarToken(bytes: bytes, style: events.scalarStyle, mark: mark)
                report(
                    .unknownField, "unknown field `\(key.excerpt)` in \(kind.phrase)", at: mark,
                    hint: FieldSuggestion.hint(forUnknownKey: key.text, in: kind))
                try skipValue()
                return .skipped
            }
            if seen.contains(field) {
                let first = keyMarks[frame...].first { $0.field == field }
                report(
                    .duplicateKey,
                    "`\(field.key)` appears twice in \(kind.phrase); YAML would silently keep only one of the values",
                    at: mark,
                    notes: first.map { [DiagnosticNote(location: location($0.mark), message: "first `\(field.key)` is here")] } ?? [],
                    hint: "keep one `\(field.key)`; a mapping cannot hold the same key twice")
                try skipValue()
                return .skipped
            }
            seen.insert(field)
            keyMarks.append((field, mark))
            return .field(field, mark)
        case .alias:
            reportAlias()
            try skipValue()
            return .skipped
        case .mappingStart, .sequenceStart:
            report(
                .wrongType, "a key in \(kind.phrase) must be a field name, not a \(events.kind == .mappingStart ? "mapping" : "sequence")",
                at: events.mark)
            try events.skipNode()
            try skipValue()
            return .skipped
        default:
            throw events.unexpectedEvent()
        }
    }

    // MARK: Skipping

    /// Skips the value that follows a key.
    mutating func skipValue() throws(YAMLStreamFailure) {
        _ = try events.advance()
        try events.skipNode()
    }

    func reportAlias() {
        report(
            .yamlAlias,
            "YAML aliases (`*\(events.aliasName)`) are not supported in manifests",
            at: events.mark,
            hint: "put shared values in `defaults:` or on the venue; beacons inherit them")
    }
}
