import BeaconCore
import YAMLDocument

/// Venues, their plans and their beacons.
extension ManifestReader {
    mutating func readVenues(into draft: inout DocumentDraft) throws(YAMLStreamFailure) {
        guard try listStart(of: .venues, expecting: "a list of venues") else { return }
        while try events.advance() != .sequenceEnd {
            guard try isMappingItem("each venue must be a mapping (id, major, beacons, …)") else { continue }
            draft.venues.append(try readVenue(at: events.mark, document: &draft))
        }
    }

    private mutating func readVenue(at mark: Mark, document: inout DocumentDraft) throws(YAMLStreamFailure) -> VenueDraft {
        var venue = VenueDraft(location: mark)
        var seen = FieldSet()
        let frame = keyMarks.count
        while true {
            switch try nextKey(in: .venue, seen: &seen, frame: frame) {
            case .end:
                if !seen.contains(.id) {
                    report(
                        .missingField, "a venue has no `id`", at: mark,
                        hint: "give every venue an `id`, unique across the fleet")
                }
                if venue.id == nil { venue.isRejected = true }
                return venue
            case .skipped:
                continue
            case .field(let field, _):
                switch field {
                case .id: venue.id = try textValue(of: .id)?.value
                case .name: venue.name = try textValue(of: .name)?.value
                case .plan:
                    venue.plan = try readPlan()
                    venue.planIsSettled = true
                case .beacons: try readBeacons(into: &venue, document: &document)
                default: try readInheritable(field, into: &venue.settings)
                }
            }
        }
    }

    /// `plan: {width: 24, height: 16}`, in metres.
    private mutating func readPlan() throws(YAMLStreamFailure) -> PlanSize? {
        guard try mappingStart(of: .plan, expecting: "a mapping {width, height} in metres") else { return nil }
        let mark = events.mark
        var width: Double?
        var height: Double?
        var seen = FieldSet()
        let frame = keyMarks.count
        while true {
            switch try nextKey(in: .plan, seen: &seen, frame: frame) {
            case .end:
                for (field, value) in [(ManifestField.width, width), (.height, height)] where !seen.contains(field) && value == nil {
                    report(.missingField, "the venue's `plan` has no `\(field.key)`", at: mark, hint: "write `plan: {width: 24, height: 16}` (metres)")
                }
                guard let width, let height else { return nil }
                return PlanSize(width: width, height: height)
            case .skipped:
                continue
            case .field(let field, _):
                guard let value = try metresValue(of: "`plan.\(field.key)`", field: field) else { continue }
                guard value.value > 0 else {
                    report(.valueOutOfRange, "`plan.\(field.key)` is \(metresText(value.value)) m; a plan's size must be more than 0 m", at: value.mark)
                    continue
                }
                if field == .width { width = value.value } else { height = value.value }
            }
        }
    }

    private mutating func readBeacons(into venue: inout VenueDraft, document: inout DocumentDraft) throws(YAMLStreamFailure) {
        guard try listStart(of: .beacons, expecting: "a list of beacons") else { return }
        let start = document.beacons.count
        while try events.advance() != .sequenceEnd {
            guard try isMappingItem("each beacon must be a mapping (id, minor, …)") else { continue }
            let read = try readBeacon(at: events.mark)
            let index = document.beacons.count
            document.beacons.append(read.beacon)
            document.beaconStates.append(read.state)
            // A position needs its mark only if it may lie off the plan: once the venue's
            // plan has been read (it usually comes before `beacons`), a position on it is
            // settled here and costs nothing more.
            if let position = read.position,
                !venue.planIsSettled || DocumentResolver.isOffPlan(position.value, plan: venue.plan)
            {
                document.positionMarks.append((index, position.mark))
            }
            if let address = read.address {
                document.addressMarks.append(
                    Namespace.AddressEntry(beacon: index, mark: address.mark, hash: Duplicates.hashHalf(address.value.value)))
            }
        }
        venue.beaconRange = start..<document.beacons.count
    }

    /// One beacon as read, on its way into the document's arrays.
    private struct BeaconRead {
        var beacon: ResolvedBeacon
        var state = Namespace.BeaconState()
        var position: Located<PlanPoint>?
        var address: Located<BluetoothAddress>?
        /// The battery values the beacon sets itself; its venue's and the fleet's fill in
        /// the rest when the document is complete.
        var batteryLow: BatteryLevel?
        var batteryType: BatteryType?
        var telemetryAddress: BluetoothAddress?
    }

    private mutating func readBeacon(at mark: Mark) throws(YAMLStreamFailure) -> BeaconRead {
        let errorsBefore = log.errorCount
        // Values go straight into the box the beacon will be; inherited ones are filled
        // in when the document is complete (fleet-level keys may come after `venues`).
        var draft = BeaconRead(
            beacon: ResolvedBeacon(venue: fileContext, line: Int(mark.line), column: Int(mark.column)))
        var seen = FieldSet()
        let frame = keyMarks.count
        while true {
            switch try nextKey(in: .beacon, seen: &seen, frame: frame) {
            case .end:
                if !seen.contains(.id) {
                    report(.missingField, "a beacon has no `id`", at: mark, hint: "give every beacon an `id`, unique across the fleet")
                }
                if !seen.contains(.minor) {
                    let name = draft.state.hasID ? "beacon `\(draft.beacon.id)`" : "a beacon"
                    report(
                        .missingField, "\(name) has no `minor`", at: mark,
                        hint: "every beacon needs its own `minor` (0…65535); uuid and major may come from the venue or fleet")
                }
                draft.state.isUsable = log.errorCount == errorsBefore
                if draft.batteryLow != nil || draft.batteryType != nil || draft.telemetryAddress != nil {
                    draft.beacon.battery = BeaconBattery(
                        lowThreshold: draft.batteryLow, type: draft.batteryType, telemetryAddress: draft.telemetryAddress)
                }
                return draft
            case .skipped:
                continue
            case .field(let field, _):
                try readBeaconField(field, into: &draft)
            }
        }
    }

    private mutating func readBeaconField(_ field: ManifestField, into draft: inout BeaconRead) throws(YAMLStreamFailure) {
        switch field {
        case .id:
            if let id = try textValue(of: .id) {
                draft.beacon.id = id.value
                draft.state.hasID = true
            }
        case .name:
            draft.beacon.name = try textValue(of: .name)?.value
        case .zone:
            draft.beacon.zone = try textValue(of: .zone)?.value
        case .uuid:
            if let uuid = try uuidValue(of: .uuid) {
                draft.beacon.identity.uuid = uuid.value
                draft.state.explicit.insert(.uuid)
            }
        case .major:
            if let major = try uint16Value(of: .major) {
                draft.beacon.identity.major = major.value
                draft.state.explicit.insert(.major)
            }
        case .minor:
            if let minor = try uint16Value(of: .minor) {
                draft.beacon.identity.minor = minor.value
                draft.state.explicit.insert(.minor)
            }
        case .measuredPower:
            if let power = try measuredPowerValue() {
                draft.beacon.measuredPower = power
                draft.state.explicit.insert(.measuredPower)
            }
        case .intervalMilliseconds:
            if let interval = try intervalValue() {
                draft.beacon.intervalMilliseconds = interval
                draft.state.explicit.insert(.intervalMilliseconds)
            }
        case .txPower:
            if let power = try txPowerValue() {
                draft.beacon.txPower = power
                draft.state.explicit.insert(.txPower)
            }
        case .host:
            if let host = try textValue(of: .host) {
                draft.beacon.host = host.value
                draft.state.explicit.insert(.host)
            }
        case .position:
            if let position = try readPosition() {
                draft.beacon.position = position.value
                draft.position = position
            }
        case .mac:
            if let mac = try macValue() {
                draft.beacon.expectedAddress = mac.value
                draft.address = mac
            }
        case .batteryLow:
            draft.batteryLow = try batteryLowValue()
        case .battery:
            draft.batteryType = try textValue(of: .battery).map { BatteryType(name: $0.value) }
        case .telemetryMac:
            draft.telemetryAddress = try macValue(of: .telemetryMac)?.value
        default:
            try skipValue()
        }
    }

    /// `position: [x, y]`, metres on the venue's plan.
    private mutating func readPosition() throws(YAMLStreamFailure) -> Located<PlanPoint>? {
        let expectation = "[x, y] in metres"
        guard try listStart(of: .position, expecting: expectation) else {
            if events.kind == .scalar, ScalarKind(of: currentToken) == .null {
                report(.emptyValue, "`position` has no value; it must be \(expectation)", at: events.mark)
            }
            return nil
        }
        let mark = events.mark
        var coordinates: (x: Double, y: Double) = (0, 0)
        var count = 0
        var failed = false
        while try events.advance() != .sequenceEnd {
            count += 1
            let axis = count == 1 ? "x" : count == 2 ? "y" : "coordinate \(count)"
            switch events.kind {
            case .scalar:
                if let value = metres(from: currentToken, description: "the \(axis) of `position`", field: .position) {
                    if count == 1 { coordinates.x = value.value } else { coordinates.y = value.value }
                } else {
                    failed = true
                }
            case .alias:
                reportAlias()
                failed = true
            default:
                report(.wrongType, "the \(axis) of `position` must be a number of metres, not \(currentShape)", at: events.mark)
                try events.skipNode()
                failed = true
            }
        }
        guard count == 2 else {
            report(.wrongType, "`position` has \(NumberText.count(count, "number")); it must be \(expectation)", at: mark)
            return nil
        }
        guard !failed else { return nil }
        return Located(value: PlanPoint(x: coordinates.x, y: coordinates.y), mark: mark)
    }
}
