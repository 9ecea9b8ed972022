import BeaconCore
import BeaconFleet

/// The `--format json` report: one object, keys sorted, documented in docs/verify.md.
/// `schema` names the shape; it changes only with a new number. Keys whose value is
/// unknown (a beacon never heard has no `first_seen_s`) are left out.
///
/// Written as the verdicts come (`StreamingJSONWriter`), byte for byte what JSONEncoder
/// writes for the whole document: a fleet's report is never held whole.
package final class VerificationJSONReport: StreamedVerificationReport {
    static let schema = "beaconctl.verify/1"

    private var json: StreamingJSONWriter
    let groupsByVenue = false

    init(_ sink: ReportSink) {
        json = StreamingJSONWriter(sink)
    }

    /// The whole report as one string (tests, small results).
    /// (Package-wide: the fuzz targets render every report too.)
    package static func render(_ result: VerificationResult) -> String {
        let sink = ReportSink.kept()
        VerificationReportPass.write(result, to: [VerificationJSONReport(sink)])
        return sink.text
    }

    // Members below are written in the order of their keys' bytes, as the encoder sorts them.

    func begin(_ context: VerificationReportContext) {
        json.beginObject()
        json.key("beacons")
        json.beginArray()
    }

    func beacon(_ verdict: BeaconVerdict, explanation: String, context: VerificationReportContext) {
        let beacon = verdict.beacon
        json.element()
        json.beginObject()
        // Left out when the manifest expects no telemetry and none was heard.
        if let battery = verdict.battery {
            json.key("battery")
            self.battery(battery)
        }
        json.member("decided_at_s", finite(verdict.decidedAt.seconds))
        json.member("decided_early", verdict.decidedEarly)
        json.key("expected")
        expected(beacon)
        json.key("findings")
        json.beginArray()
        for finding in verdict.findings {
            json.element()
            json.beginObject()
            json.member("kind", finding.status.rawValue)
            json.member("message", finding.explanation(observation: verdict.observation))
            json.endObject()
        }
        json.endArray()
        json.key("heard")
        heard(verdict.observation)
        json.member("id", beacon.beaconID)
        json.key("identity")
        identity(beacon.identity)
        json.member("manifest", beacon.location?.description)
        json.member("message", explanation)
        json.member("name", beacon.name)
        json.member("status", verdict.status.rawValue)
        json.member("venue", beacon.venueID)
        json.member("zone", beacon.zone)
        json.endObject()
    }

    func end(_ context: VerificationReportContext) {
        let result = context.result
        json.endArray()
        json.member("duration_s", finite(result.duration.instantSeconds))
        json.member("end", result.endReason.rawValue)
        json.key("other_manifest_beacons")
        json.beginArray()
        for other in result.otherManifestBeacons {
            json.element()
            json.beginObject()
            json.member("id", other.beaconID)
            json.key("identity")
            identity(other.identity)
            json.member("sightings", other.sightings)
            json.endObject()
        }
        json.endArray()
        json.member("passed", result.passed)
        json.key("policy")
        policy(result.policy)
        json.member("schema", Self.schema)
        json.member("scope", result.scope)
        json.key("summary")
        summary(result)
        json.key("unexpected")
        json.beginArray()
        for unexpected in result.unexpected {
            json.element()
            json.beginObject()
            json.key("heard")
            heard(unexpected.observation)
            json.key("identity")
            identity(unexpected.identity)
            json.member("likely_venue", unexpected.likelyVenue)
            json.member("message", unexpected.explanation)
            json.member("status", VerdictStatus.unexpected.rawValue)
            json.endObject()
        }
        json.endArray()
        // Left out when there is nothing to warn of, so that a clean pass's report is unchanged.
        if !context.warnings.isEmpty { json.member("warnings", strings: context.warnings) }
        json.endObject()
        json.endDocument()
    }

    private func summary(_ result: VerificationResult) {
        // `unmonitored` only when a pass could not see (its input lost): other reports unchanged.
        var counts = VerdictStatus.allCases.filter { $0 != .unmonitored || result.count($0) > 0 }.map { ($0.rawValue, result.count($0)) }
        counts.append(("expected", result.verdicts.count))
        counts.append(("sightings", result.sightings))
        counts.append(("ignored_sightings", result.ignoredSightings))
        counts.append(("unlisted_unexpected_sightings", result.untrackedUnexpectedSightings))
        // Only when some were lost, so that the report of a complete pass is unchanged.
        if result.lostReports > 0 { counts.append(("lost_reports", result.lostReports)) }
        // Only when a battery was reported or telemetry heard: other passes' reports unchanged.
        if result.hasBatteryReports || result.telemetry.received > 0 {
            counts.append(("battery_low", result.count(battery: .low)))
            counts.append(("no_telemetry", result.count(battery: .noTelemetry)))
            counts.append(("telemetry_readings", result.telemetry.received))
            counts.append(("unpaired_telemetry", result.telemetry.unpaired))
        }
        json.beginObject()
        for (key, count) in counts.sorted(by: { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }) {
            json.key(named: key)
            json.value(count)
        }
        json.endObject()
    }

    private func policy(_ policy: VerificationPolicy) {
        json.beginObject()
        json.member("minimum_settle_s", policy.minimumSettle.instantSeconds)
        json.member("required_sightings", policy.requiredSightings)
        json.member("settle_intervals", policy.settleIntervals)
        json.member("slow_evidence_losses", policy.slowEvidenceLosses)
        json.member("slow_factor", policy.slowFactor)
        json.member("timeout_s", policy.timeout.flatMap { finite($0.instantSeconds) })
        json.endObject()
    }

    /// `{"age_s":12,"battery_mv":2410,"heard_at_s":3.2,"level":"2.41 V","readings":4,
    /// "source":"eddystone-tlm","status":"battery-low","temperature_c":21.5,"threshold":"2.5 V"}`:
    /// `battery_mv` or `battery_percent` by the level's unit; unknown values left out.
    private func battery(_ battery: BatteryReport) {
        json.beginObject()
        json.member("age_s", battery.age.flatMap { finite($0.instantSeconds) })
        if case .millivolts(let value)? = battery.level { json.member("battery_mv", Int(value)) }
        if case .percent(let value)? = battery.level { json.member("battery_percent", Int(value)) }
        json.member("heard_at_s", battery.heardAt.flatMap { finite($0.seconds) })
        json.member("level", battery.level?.description)
        json.member("readings", battery.readings)
        json.member("source", battery.source?.rawValue)
        json.member("status", battery.status.rawValue)
        json.member("temperature_c", battery.temperature.flatMap { $0.isFinite ? ($0 * 100).rounded() / 100 : nil })
        json.member("threshold", battery.threshold?.description)
        json.endObject()
    }

    private func identity(_ identity: BeaconIdentity) {
        json.beginObject()
        json.member("major", Int(identity.major))
        json.member("minor", Int(identity.minor))
        json.member("uuid", identity.uuid.description)
        json.endObject()
    }

    /// `measured_power_rule`: `calibrated`, `advertised` (auto, value known) or `plausible`
    /// (auto, any value in range).
    private func expected(_ beacon: ExpectedBeacon) {
        json.beginObject()
        json.member("address", beacon.expectedAddress?.description)
        json.member("interval_ms", beacon.intervalMilliseconds)
        switch beacon.measuredPower {
        case .calibrated(let value):
            json.member("measured_power", Int(value))
            json.member("measured_power_rule", "calibrated")
        case .advertised(let value):
            json.member("measured_power", Int(value))
            json.member("measured_power_rule", "advertised")
        case .plausible(let range):
            json.member("measured_power_range", integers: [range.lowerBound, range.upperBound])
            json.member("measured_power_rule", "plausible")
        }
        json.endObject()
    }

    private func heard(_ observation: BeaconObservation) {
        json.beginObject()
        json.key("addresses")
        json.beginArray()
        for address in observation.addresses {
            json.element()
            self.address(address)
        }
        json.endArray()
        json.member("first_seen_s", observation.firstSeen.flatMap { finite($0.seconds) })
        json.member("last_seen_s", observation.lastSeen.flatMap { finite($0.seconds) })
        json.key("measured_power")
        json.beginArray()
        for power in observation.measuredPowers {
            json.element()
            json.beginObject()
            json.member("dbm", Int(power.value))
            json.member("sightings", power.sightings)
            json.endObject()
        }
        json.endArray()
        json.key("receivers")
        json.beginArray()
        for receiver in observation.receiversByStrength {
            json.element()
            self.receiver(receiver)
        }
        json.endArray()
        json.member("sightings", observation.sightings)
        json.member("strongest_rssi", observation.strongestRSSI)
        json.member("untracked_receiver_sightings", observation.untrackedReceiverSightings > 0 ? observation.untrackedReceiverSightings : nil)
        json.endObject()
    }

    private func address(_ address: AddressObservation) {
        json.beginObject()
        json.member("address", address.address)
        json.member("events", address.events)
        json.member("first_seen_s", finite(address.firstSeen.seconds))
        json.member("last_seen_s", finite(address.lastSeen.seconds))
        json.member("private", address.isPrivate)
        json.member("random", address.isRandom)
        json.member("shortest_gap_ms", address.shortestGap.map { ($0.instantSeconds * 10_000).rounded() / 10 })
        json.member("sightings", address.sightings)
        json.member("strongest_rssi", address.strongestRSSI)
        json.endObject()
    }

    private func receiver(_ receiver: ReceiverObservation) {
        json.beginObject()
        json.member("first_seen_s", finite(receiver.firstSeen.seconds))
        json.member("last_seen_s", finite(receiver.lastSeen.seconds))
        // A tenth of a dB: the mean of whole-dB readings carries no more.
        json.member("mean_rssi", receiver.meanRSSI.flatMap { $0.isFinite ? ($0 * 10).rounded() / 10 : nil })
        json.member("receiver", receiver.receiver)
        json.member("sightings", receiver.sightings)
        json.member("strongest_rssi", receiver.strongestRSSI)
        json.endObject()
    }
}

/// A time in seconds, to the millisecond. JSON has no infinity or NaN: such a value is
/// left out.
private func finite(_ value: Double) -> Double? {
    value.isFinite ? (value * 1000).rounded() / 1000 : nil
}
