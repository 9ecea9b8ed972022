import BeaconCore
import FleetManifest

/// New text to put into a manifest at one byte offset; every other byte stays as it was.
public struct ManifestInsertion: Hashable, Sendable {
    /// Byte offset in the original file, always at the start of a line (or its end).
    public var offset: Int
    public var text: String
    /// The 1-based line where the inserted text starts in the new file.
    public var line: Int

    public func applied(to bytes: [UInt8]) -> [UInt8] {
        Array(bytes[..<offset]) + Array(text.utf8) + Array(bytes[offset...])
    }
}

/// Why new identities cannot be written into a manifest file as text.
public enum AllocationAppendError: Error, Hashable, Sendable, CustomStringConvertible {
    case newFleet(file: String)
    case venueInAnotherFile(venue: String, location: SourceLocation, file: String)
    case flowStyle(what: String, location: SourceLocation)
    case unexpectedValue(key: String, location: SourceLocation, value: String)
    case otherFleet(file: String, fileFleet: String, planFleet: String)

    public var description: String {
        switch self {
        case .newFleet(let file):
            return "fleet is new, so it has no manifest to append to; leave out \(UserSetting.append) \(file) and save the manifest printed, e.g. with `> \(file)`"
        case .venueInAnotherFile(let venue, let location, let file):
            return "venue `\(venue)` is written in \(location.file) (\(location)), not in \(file); append to \(location.file)"
        case .flowStyle(let what, let location):
            return "\(what) at \(location) is written in flow style (`{…}` or `[…]`); only block style can be edited in place: rewrite it as `- key: value` lines or add the printed YAML by hand"
        case .unexpectedValue(let key, let location, let value):
            return "`\(key): \(value)` at \(location) cannot take new entries in place; write `\(key):` on its own line or add the printed YAML by hand"
        case .otherFleet(let file, let fileFleet, let planFleet):
            return "\(file) holds fleet `\(fileFleet)`, not `\(planFleet)`; append to a manifest of `\(planFleet)`"
        }
    }
}

/// Finds where an allocation goes in a manifest file and writes it in the file's own
/// indentation: new beacons after the venue's last beacon, a new venue after the file's
/// last venue. Positions come from the loader's source locations; ends of entries from
/// indentation. The rest of the file — comments, blank lines, key order, quoting — is not
/// touched.
public enum AllocationAppend {
    public static func insertion(
        for plan: AllocationPlan, into bytes: [UInt8], file: String, fleet: Fleet
    ) throws(AllocationAppendError) -> ManifestInsertion {
        if plan.isNewFleet { throw .newFleet(file: file) }
        let text = ManifestText(bytes)
        let fileVenues = fleet.venues.filter { $0.location.file == file }
        if let other = fileVenues.first(where: { $0.fleetName != plan.fleetName }) {
            throw .otherFleet(file: file, fileFleet: other.fleetName, planFleet: plan.fleetName)
        }
        var indentation = try style(of: fileVenues, in: text)
        let newline = text.newline

        if !plan.venue.isNew {
            guard let venue = fleet.venues.first(where: { $0.id == plan.venue.id }) else {
                // The plan was made from this namespace, so the venue is there; an
                // inconsistent caller still gets an answer rather than a trap.
                throw .venueInAnotherFile(venue: plan.venue.id, location: .wholeFile("?"), file: file)
            }
            guard venue.location.file == file else {
                throw .venueInAnotherFile(venue: venue.id, location: venue.location, file: file)
            }
            let (venueLine, venueKey, venueDash) = try item(venue.location, in: text, what: "venue `\(venue.id)`")
            let venueBeaconOffset = indentation.beaconDash - indentation.venueKey
            let beaconKeyOffset = indentation.beaconKey - indentation.beaconDash
            indentation.venueDash = venueDash
            indentation.venueKey = venueKey
            indentation.beaconDash = venueKey + venueBeaconOffset
            indentation.beaconKey = indentation.beaconDash + beaconKeyOffset

            if let last = venue.beacons.max(by: { $0.location.line < $1.location.line }) {
                let (line, key, dash) = try item(last.location, in: text, what: "beacon `\(last.id)`")
                indentation.beaconDash = dash
                indentation.beaconKey = key
                let end = text.lastLine(ofItemAt: line, dashColumn: dash)
                return make(text, after: end, AllocationYAML.beacons(plan, indentation: indentation, newline: newline))
            }
            let venueEnd = text.lastLine(ofItemAt: venueLine, dashColumn: venueDash)
            if let keyLine = text.keyLine("beacons", column: venueKey, from: venueLine, through: venueEnd) {
                let value = text.value(afterKeyOn: keyLine, keyColumn: venueKey, key: "beacons")
                guard value.isEmpty else {
                    throw .unexpectedValue(
                        key: "beacons", location: SourceLocation(file: file, line: keyLine + 1, column: venueKey + 1),
                        value: value)
                }
                return make(text, after: keyLine, AllocationYAML.beacons(plan, indentation: indentation, newline: newline))
            }
            return make(text, after: venueEnd, AllocationYAML.beaconsKey(plan, indentation: indentation, newline: newline))
        }

        if let last = fileVenues.max(by: { $0.location.line < $1.location.line }) {
            let (line, _, dash) = try item(last.location, in: text, what: "venue `\(last.id)`")
            let end = text.lastLine(ofItemAt: line, dashColumn: dash)
            // Files that set venues apart with a blank line get one before the new venue too.
            let separator = text.isPrecededByBlankLine(line) ? newline : ""
            return make(text, after: end, separator + AllocationYAML.venue(plan, indentation: indentation, newline: newline))
        }
        if !text.lines.isEmpty, let keyLine = text.keyLine("venues", column: 0, from: 0, through: text.lines.count - 1) {
            let value = text.value(afterKeyOn: keyLine, keyColumn: 0, key: "venues")
            guard value.isEmpty else {
                throw .unexpectedValue(key: "venues", location: SourceLocation(file: file, line: keyLine + 1, column: 1), value: value)
            }
            return make(text, after: keyLine, AllocationYAML.venue(plan, indentation: indentation, newline: newline))
        }
        return make(
            text, after: text.lines.count - 1,
            "venues:" + newline + AllocationYAML.venue(plan, indentation: indentation, newline: newline))
    }

    /// What a manifest's text declares for new beacons to inherit, beyond what the resolved
    /// model keeps (it keeps each beacon's values, not the venue's or fleet's defaults).
    public struct Declarations: Hashable, Sendable {
        public var venueMajor: UInt16?
        public var venueUUID: ProximityUUID?
        public var fleetUUID: ProximityUUID?
        /// The top-level `fleet:` name.
        public var fleetName: String?
    }

    /// The `major:` and `uuid:` of `venue` (when given, and written in `bytes`) and the
    /// top-level `uuid:` and `fleet:` of the file.
    public static func declarations(of venue: ResolvedVenue?, in bytes: [UInt8]) -> Declarations {
        let text = ManifestText(bytes)
        var declarations = Declarations()
        if !text.lines.isEmpty, let line = text.keyLine("uuid", column: 0, from: 0, through: text.lines.count - 1) {
            declarations.fleetUUID = try? ProximityUUID(parsing: text.value(afterKeyOn: line, keyColumn: 0, key: "uuid"))
        }
        if !text.lines.isEmpty, let line = text.keyLine("fleet", column: 0, from: 0, through: text.lines.count - 1) {
            let name = text.value(afterKeyOn: line, keyColumn: 0, key: "fleet")
            declarations.fleetName = name.isEmpty ? nil : name
        }
        guard let venue else { return declarations }
        let line = venue.location.line - 1
        let keyColumn = venue.location.column - 1
        guard line >= 0, line < text.lines.count, keyColumn >= 0,
            let dash = text.dashColumn(line: line, keyColumn: keyColumn)
        else { return declarations }
        let end = text.lastLine(ofItemAt: line, dashColumn: dash)
        if let keyLine = text.keyLine("major", column: keyColumn, from: line, through: end) {
            declarations.venueMajor = UInt16(text.value(afterKeyOn: keyLine, keyColumn: keyColumn, key: "major"))
        }
        if let keyLine = text.keyLine("uuid", column: keyColumn, from: line, through: end) {
            declarations.venueUUID = try? ProximityUUID(parsing: text.value(afterKeyOn: keyLine, keyColumn: keyColumn, key: "uuid"))
        }
        return declarations
    }

    /// Line, key column and dash column (all 0-based) of a list entry the loader located.
    private static func item(
        _ location: SourceLocation, in text: ManifestText, what: String
    ) throws(AllocationAppendError) -> (line: Int, key: Int, dash: Int) {
        let line = location.line - 1
        let key = location.column - 1
        guard line >= 0, line < text.lines.count, key >= 0, let dash = text.dashColumn(line: line, keyColumn: key) else {
            throw .flowStyle(what: what, location: location)
        }
        return (line, key, dash)
    }

    /// The file's indentation, from its first venue and first beacon; the examples' layout
    /// where the file has none.
    private static func style(of venues: [ResolvedVenue], in text: ManifestText) throws(AllocationAppendError) -> ManifestIndentation {
        var style = ManifestIndentation.standard
        guard let venue = venues.first else { return style }
        let (_, venueKey, venueDash) = try item(venue.location, in: text, what: "venue `\(venue.id)`")
        style.venueDash = venueDash
        style.venueKey = venueKey
        style.beaconDash = venueKey + 2
        style.beaconKey = venueKey + 4
        if let sample = venues.lazy.compactMap({ venue in venue.beacons.first.map { (venue, $0) } }).first {
            let (_, sampleVenueKey, _) = try item(sample.0.location, in: text, what: "venue `\(sample.0.id)`")
            let (_, key, dash) = try item(sample.1.location, in: text, what: "beacon `\(sample.1.id)`")
            style.beaconDash = venueKey + (dash - sampleVenueKey)
            style.beaconKey = style.beaconDash + (key - dash)
        }
        return style
    }

    private static func make(_ text: ManifestText, after line: Int, _ inserted: String) -> ManifestInsertion {
        guard line >= 0, !text.lines.isEmpty else { return ManifestInsertion(offset: text.start, text: inserted, line: 1) }
        let offset = text.offset(after: line)
        // A last line without a newline gets one before the new text starts.
        let needsNewline = offset == text.bytes.count && text.lacksFinalNewline
        return ManifestInsertion(
            offset: offset, text: (needsNewline ? text.newline : "") + inserted, line: line + 2)
    }
}
