import BeaconCore

/// Edits one value of a manifest in its text, leaving every other byte alone: comments,
/// blank lines, quoting, key order and indentation stay exactly as the author wrote them.
///
/// Used by `calibrate --write` to record a beacon's measured power: the number is replaced
/// where it stands, or, when the beacon has no `measured_power:` key of its own (it
/// inherits one or uses `auto`), one line is inserted in the beacon's mapping, indented
/// like its keys (or `, measured_power: N` inside a flow mapping `{…}`). Used the same way by
/// `provision --hardware --assign nearest` to record the address a beacon was given (`mac:`).
public enum ManifestValueEdit {
    /// The key this edit writes.
    static let measuredPowerKey = "measured_power"

    /// `bytes` with the `measured_power` of the beacon whose mapping starts at `beacon`
    /// (its `ResolvedBeacon.location` line and column) set to `value` dBm.
    public static func settingMeasuredPower(
        _ value: Int8, ofBeaconAt beacon: SourceLocation, in bytes: [UInt8]
    ) throws(ManifestEditError) -> [UInt8] {
        // Locations count from after a byte-order mark (see `LoadSession.read`): edit the
        // text behind it and keep the mark.
        let textStart = ByteOrderMark.utf8Length(of: bytes)
        if textStart > 0 {
            return Array(bytes[..<textStart])
                + (try settingMeasuredPower(value, ofBeaconAt: beacon, in: Array(bytes[textStart...])))
        }
        return try setting(measuredPowerKey, to: String(value), ofBeaconAt: beacon, in: bytes)
    }

    /// The key `mac:` writes (`settingAddress`).
    static let addressKey = "mac"

    /// `bytes` with the `mac` of the beacon whose mapping starts at `beacon` set to
    /// `address`, quoted (a colon in a plain scalar reads differently in a flow mapping).
    public static func settingAddress(
        _ address: BluetoothAddress, ofBeaconAt beacon: SourceLocation, in bytes: [UInt8]
    ) throws(ManifestEditError) -> [UInt8] {
        let textStart = ByteOrderMark.utf8Length(of: bytes)
        if textStart > 0 {
            return Array(bytes[..<textStart]) + (try settingAddress(address, ofBeaconAt: beacon, in: Array(bytes[textStart...])))
        }
        return try setting(addressKey, to: "\"\(address)\"", ofBeaconAt: beacon, in: bytes)
    }

    /// `bytes` with `key: value` in the beacon's mapping: the value replaced where it
    /// stands, else one line (or `, key: value` in a flow mapping) added.
    static func setting(_ key: String, to value: String, ofBeaconAt beacon: SourceLocation, in bytes: [UInt8]) throws(ManifestEditError) -> [UInt8] {
        let layout = try BeaconMappingLayout.find(at: beacon, in: bytes, key: key)
        let text = Array(value.utf8)
        if let existing = layout.existingValue {
            var edited = bytes
            edited.replaceSubrange(existing, with: text)
            return edited
        }
        let insertion = layout.insertion
        var edited = bytes
        if layout.isFlow {
            edited.insert(contentsOf: Array(", \(key): ".utf8) + text, at: insertion.offset)
        } else {
            let lineBreak = insertion.lineBreak
            var line = [UInt8](repeating: 0x20, count: insertion.indentation) + Array("\(key): ".utf8) + text
            if insertion.needsLineBreakBefore {
                line = lineBreak + line
            } else {
                line += lineBreak
            }
            edited.insert(contentsOf: line, at: insertion.offset)
        }
        return edited
    }
}

/// Why a manifest was not edited; the file is untouched in every case.
public struct ManifestEditError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var message: String

    public init(file: String, _ message: String) {
        self.file = file
        self.message = message
    }

    public var description: String { "\(file): \(message)" }
}
