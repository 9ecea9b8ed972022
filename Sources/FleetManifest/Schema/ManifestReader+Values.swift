import BeaconCore
import YAMLDocument

/// Typed values. Each reader moves to the value of the key just read, returns it, or
/// reports precisely why it is not acceptable and returns `nil`. Nothing is coerced: a
/// value is taken only when its text and style say unambiguously what it is.
extension ManifestReader {
    /// The value's scalar, or `nil` after reporting a collection, alias or tag where a
    /// scalar belongs. `expectation` is only built when a message needs it: values are
    /// read by the hundred thousand, messages are rare.
    mutating func scalarValue(
        of field: ManifestField, expecting expectation: @autoclosure () -> String
    ) throws(YAMLStreamFailure) -> ScalarToken? {
        switch try events.advance() {
        case .scalar:
            if let tag = events.explicitTag {
                reportTag(tag)
                return nil
            }
            return ScalarToken(bytes: events.scalarBytes, style: events.scalarStyle, mark: events.mark)
        case .alias:
            reportAlias()
            return nil
        case .mappingStart, .sequenceStart:
            let shape = events.kind == .mappingStart ? "a mapping" : "a list"
            report(.wrongType, "`\(field.key)` must be \(expectation()), not \(shape)", at: events.mark)
            try events.skipNode()
            return nil
        default:
            throw events.unexpectedEvent()
        }
    }

    func reportTag(_ tag: String) {
        report(
            .yamlTag, "explicit YAML tags (`\(tag)`) are not used in manifests", at: events.mark,
            hint: "remove the tag; quote the value if it is meant as text")
    }

    // MARK: Integers

    mutating func integerValue(
        of field: ManifestField, in range: ClosedRange<Int>, unit: String? = nil
    ) throws(YAMLStreamFailure) -> Located<Int>? {
        func expectation() -> String {
            "an integer \(range.lowerBound)…\(range.upperBound)" + (unit.map { " \($0)" } ?? "")
        }
        guard let token = try scalarValue(of: field, expecting: expectation()) else { return nil }
        switch ScalarKind(of: token) {
        case .integer(let value) where range.contains(value):
            return Located(value: value, mark: token.mark)
        case .integer, .integerOverflow:
            let units = unit.map { " \($0)" } ?? ""
            report(
                .valueOutOfRange,
                "`\(field.key)` is \(token.excerpt)\(units); it must be \(range.lowerBound)…\(range.upperBound)\(units)",
                at: token.mark, hint: rangeHint(for: field))
            return nil
        case let kind:
            reportMismatch(kind, token, field: field, wants: .integer, expectation: expectation())
            return nil
        }
    }

    /// Why a field has its range, where that helps the reader fix the value.
    private func rangeHint(for field: ManifestField) -> String? {
        switch field {
        case .major, .minor:
            return "major and minor are unsigned 16-bit numbers in the iBeacon frame"
        case .intervalMilliseconds:
            return "Bluetooth allows advertising intervals of 20 ms to 10.24 s (Core v5.4 Vol 4 Part E 7.8.5)"
        case .txPower:
            return "controllers accept −127…+20 dBm (Core v5.4 Vol 4 Part E 7.8.53)"
        case .measuredPower:
            return "measured power is the RSSI 1 m from the beacon, a negative dBm value; or write `auto`"
        case .maxBeaconsPerHost:
            return "a controller has at most 240 advertising sets (handles 0x00…0xEF, Core v5.4 Vol 4 Part E 7.8.53)"
        default:
            return nil
        }
    }

    mutating func uint16Value(of field: ManifestField) throws(YAMLStreamFailure) -> Located<UInt16>? {
        guard let value = try integerValue(of: field, in: 0...Int(UInt16.max)) else { return nil }
        return Located(value: UInt16(truncatingIfNeeded: value.value), mark: value.mark)
    }

    // MARK: Real numbers

    /// A number of metres (plan sizes, positions). `field` names it in messages.
    mutating func metresValue(
        of description: @autoclosure () -> String, field: ManifestField
    ) throws(YAMLStreamFailure) -> Located<Double>? {
        guard let token = try scalarValue(of: field, expecting: "a number of metres") else { return nil }
        return metres(from: token, description: description(), field: field)
    }

    func metres(
        from token: ScalarToken, description: @autoclosure () -> String, field: ManifestField
    ) -> Located<Double>? {
        switch ScalarKind(of: token) {
        case .integer(let value):
            return Located(value: Double(value), mark: token.mark)
        case .decimal(let value, _) where value.isFinite:
            return Located(value: value, mark: token.mark)
        case .nonFinite, .decimal, .integerOverflow:
            report(.valueOutOfRange, "\(description()) is \(token.excerpt); it must be a finite number of metres", at: token.mark)
            return nil
        case let kind:
            reportMismatch(kind, token, field: field, wants: .number, expectation: "a number of metres", subject: description())
            return nil
        }
    }

    // MARK: Booleans

    mutating func boolValue(of field: ManifestField) throws(YAMLStreamFailure) -> Bool? {
        guard let token = try scalarValue(of: field, expecting: "true or false") else { return nil }
        switch ScalarKind(of: token) {
        case .boolean(let value):
            return value
        case .yaml11Boolean:
            let meant = ["yes", "on", "y"].contains(token.text.lowercased())
            report(
                .ambiguousBoolean,
                "`\(field.key)` is `\(token.excerpt)`: a boolean to YAML 1.1 readers but text to YAML 1.2 readers",
                at: token.mark, hint: "write `\(field.key): \(meant)`")
            return nil
        case let kind:
            reportMismatch(kind, token, field: field, wants: .boolean, expectation: "true or false")
            return nil
        }
    }

    // MARK: Text

    /// A one-line, non-empty text such as an id, a name or a host. Plain scalars are taken
    /// as written: `zone: 010` is the zone named "010".
    mutating func textValue(of field: ManifestField) throws(YAMLStreamFailure) -> Located<String>? {
        guard let token = try scalarValue(of: field, expecting: "a text") else { return nil }
        return text(from: token, field: field)
    }

    func text(from token: ScalarToken, field: ManifestField) -> Located<String>? {
        switch ScalarKind(of: token) {
        case .null:
            report(.emptyValue, "`\(field.key)` has no value", at: token.mark, hint: "write a value after `\(field.key):` or remove the line")
            return nil
        case .block:
            report(.wrongType, "`\(field.key)` must be text on one line, not a block scalar", at: token.mark)
            return nil
        default:
            guard !token.bytes.isEmpty else {
                report(.emptyValue, "`\(field.key)` is empty", at: token.mark, hint: "write a value between the quotes or remove the line")
                return nil
            }
            if let control = ControlCharacter.first(in: token.bytes) {
                report(
                    .controlCharacter,
                    "`\(field.key)` `\(token.excerpt)` contains \(ControlCharacter.name(of: control)); text in a manifest is printed in logs and terminals and passed to programs, where control characters do harm",
                    at: token.mark, hint: "remove it (a quoted value may spell it as an escape such as \\n, \\0 or \\e)")
                return nil
            }
            return Located(value: token.text, mark: token.mark)
        }
    }

    // MARK: Identity values

    /// A proximity UUID in the canonical 8-4-4-4-12 form. The nil UUID is refused; a
    /// vendor's factory default is accepted with a warning.
    mutating func uuidValue(of field: ManifestField) throws(YAMLStreamFailure) -> Located<ProximityUUID>? {
        guard let token = try scalarValue(of: field, expecting: "a UUID (8-4-4-4-12 hexadecimal)"),
            let text = text(from: token, field: field)
        else { return nil }
        let uuid: ProximityUUID
        do {
            uuid = try ProximityUUID(parsing: text.value)
        } catch {
            report(.invalidUUID, "`\(field.key)` `\(token.excerpt)` is not a UUID: \(error)", at: token.mark)
            return nil
        }
        if uuid.isZero {
            report(
                .nilUUID, "`\(field.key)` is the nil UUID, which unconfigured beacons send and apps cannot tell apart",
                at: token.mark, hint: "generate a UUID for the fleet (uuidgen) and use it everywhere")
            return nil
        }
        if let vendor = VendorUUIDs.vendor(of: uuid) {
            report(
                .vendorDefaultUUID,
                "\(uuid) is the default UUID of \(vendor); other beacons nearby are likely to use it too",
                at: token.mark, hint: "generate a UUID of your own (uuidgen) so regions match only your beacons")
        }
        return Located(value: uuid, mark: token.mark)
    }

    // MARK: Radio settings

    /// `auto` or a calibrated dBm value −127…−1; outside the plausible −100…−30 a warning.
    mutating func measuredPowerValue() throws(YAMLStreamFailure) -> MeasuredPower? {
        let field = ManifestField.measuredPower
        let expectation = "`auto` or an integer −127…−1 (dBm at 1 m)"
        guard let token = try scalarValue(of: field, expecting: expectation) else { return nil }
        let kind = ScalarKind(of: token)
        if token.bytes.elementsEqual("auto".utf8), kind == .text || kind == .quoted {
            return .auto
        }
        switch kind {
        case .integer(let value) where MeasuredPower.validRange ~= value:
            if !(MeasuredPower.plausibleRange ~= value) {
                report(
                    .implausibleMeasuredPower,
                    "`measured_power` \(value) dBm is unusual for the RSSI at 1 m (typically −100…−30 dBm); distances computed from it will be off",
                    at: token.mark, hint: "measure it again (\(UserCommand.calibrate)) or write `auto`")
            }
            return .dBm(Int8(value))
        case .integer, .integerOverflow:
            report(
                .valueOutOfRange,
                "`measured_power` is \(token.excerpt); it must be −127…−1 dBm or `auto`",
                at: token.mark, hint: rangeHint(for: field))
            return nil
        default:
            reportMismatch(kind, token, field: field, wants: .integer, expectation: expectation)
            return nil
        }
    }

    /// Advertising interval in ms, 20…10240; below 100 ms a warning (Core v4.2 Vol 2 Part E
    /// 7.8.5 required 100 ms for non-connectable advertising; v5.0 dropped the rule).
    mutating func intervalValue() throws(YAMLStreamFailure) -> Int? {
        guard let interval = try integerValue(of: .intervalMilliseconds, in: 20...10240, unit: "ms") else { return nil }
        if interval.value < 100 {
            report(
                .shortInterval,
                "`interval_ms` \(interval.value) ms is below the iBeacon convention of 100 ms: more airtime and battery for no benefit to iOS, and controllers before Bluetooth 5.0 refuse non-connectable advertising below 100 ms",
                at: interval.mark, hint: "use 100 unless a test needs faster advertising")
        }
        return interval.value
    }

    mutating func txPowerValue() throws(YAMLStreamFailure) -> Int? {
        try integerValue(of: .txPower, in: TransmitPower.validRange, unit: "dBm")?.value
    }

    /// The expected advertiser address, read straight from the bytes.
    mutating func macValue(of field: ManifestField = .mac) throws(YAMLStreamFailure) -> Located<BluetoothAddress>? {
        guard let token = try scalarValue(of: field, expecting: "an address like AA:BB:CC:DD:EE:FF") else { return nil }
        if token.style != .block, let address = BluetoothAddress(utf8: token.bytes) {
            return Located(value: address, mark: token.mark)
        }
        guard let text = text(from: token, field: field) else { return nil }
        report(
            .invalidMAC,
            "`\(field.key)` `\(token.excerpt)` is not a Bluetooth address: \(BluetoothAddress.SpellingProblem(text.value))",
            at: token.mark)
        return nil
    }

    /// `battery_low`: the level below which the audit warns, in volts (`2.6V`, `2.6 V`,
    /// `2600mV`, or a bare number of volts) or percent (`20%`), within the accepted ranges
    /// (`BatteryLevel`).
    mutating func batteryLowValue() throws(YAMLStreamFailure) -> BatteryLevel? {
        let expectation = "a voltage such as 2.6V or a percentage such as 20%"
        guard let token = try scalarValue(of: .batteryLow, expecting: expectation) else { return nil }
        let level: BatteryLevel?
        switch ScalarKind(of: token) {
        case .integer(let value) where (0...60).contains(value):
            level = .millivolts(UInt16(value * 1000))
        case .decimal(let value, _) where value.isFinite && value >= 0 && value <= 60:
            level = UInt16(exactly: (value * 1000).rounded()).map { .millivolts($0) }
        case .text, .quoted:
            level = BatteryLevel(text: token.text)
        case .null:
            report(.emptyValue, "`battery_low` has no value", at: token.mark, hint: "write \(expectation), or remove the line")
            return nil
        default:
            level = nil
        }
        guard let level else {
            report(.wrongType, "`battery_low` is \(token.excerpt); it must be \(expectation)", at: token.mark)
            return nil
        }
        guard level.isAcceptedThreshold else {
            report(
                .valueOutOfRange,
                "`battery_low` is \(level); it must be \(BatteryLevel.voltsText(BatteryLevel.acceptedMillivolts.lowerBound))…"
                    + "\(BatteryLevel.voltsText(BatteryLevel.acceptedMillivolts.upperBound)) V or "
                    + "\(BatteryLevel.acceptedPercent.lowerBound)…\(BatteryLevel.acceptedPercent.upperBound) %",
                at: token.mark, hint: "a beacon's cell is 1.5 V, 3 V or 3.6 V new; warn a few tenths of a volt above where it stops")
            return nil
        }
        return level
    }
}
