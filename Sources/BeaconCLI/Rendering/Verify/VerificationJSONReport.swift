import BeaconCore
import BeaconFleet
import Foundation

/// The `--format json` report: one object, keys sorted, documented in docs/verify.md.
/// `schema` names the shape; it changes only with a new number. Keys whose value is
/// unknown (a beacon never heard has no `first_seen_s`) are left out.
public enum VerificationJSONReport {
    public static let schema = "beaconctl.verify/1"

    public static func render(_ result: VerificationResult) -> String {
        // Every value below is a string, an integer, a finite number or null: encoding
        // cannot fail. Should it, the reason is reported in the same shape.
        let text = (try? JSONOutput.document(Document(result))) ?? #"{"error": "the report could not be encoded"}"#
        return text + "\n"
    }

    struct Document: Encodable {
        var schema = VerificationJSONReport.schema
        var scope: String
        var passed: Bool
        var end: String
        var durationSeconds: Double?
        var policy: Policy
        var summary: [String: Int]
        var beacons: [Beacon]
        var unexpected: [Unexpected]
        var otherManifestBeacons: [Other]
        /// Left out when there is nothing to warn of, so that a clean pass's report is unchanged.
        var warnings: [String]?

        enum CodingKeys: String, CodingKey {
            case schema, scope, passed, end, policy, summary, beacons, unexpected, warnings
            case durationSeconds = "duration_s"
            case otherManifestBeacons = "other_manifest_beacons"
        }

        init(_ result: VerificationResult) {
            scope = result.scope
            passed = result.passed
            end = result.endReason.rawValue
            durationSeconds = finite(result.duration)
            policy = Policy(result.policy)
            var counts = Dictionary(uniqueKeysWithValues: VerdictStatus.allCases.map { ($0.rawValue, result.count($0)) })
            counts["expected"] = result.verdicts.count
            counts["sightings"] = result.sightings
            counts["ignored_sightings"] = result.ignoredSightings
            counts["unlisted_unexpected_sightings"] = result.untrackedUnexpectedSightings
            // Only when some were lost, so that the report of a complete pass is unchanged.
            if result.lostReports > 0 { counts["lost_reports"] = result.lostReports }
            summary = counts
            beacons = result.verdicts.map { Beacon($0, result: result) }
            unexpected = result.unexpected.map(Unexpected.init)
            otherManifestBeacons = result.otherManifestBeacons.map(Other.init)
            warnings = result.warnings.isEmpty ? nil : result.warnings
        }
    }

    struct Policy: Encodable {
        var requiredSightings: Int
        var timeoutSeconds: Double?
        var settleIntervals: Double
        var minimumSettleSeconds: Double
        var slowFactor: Double
        var slowEvidenceLosses: Int

        enum CodingKeys: String, CodingKey {
            case requiredSightings = "required_sightings"
            case timeoutSeconds = "timeout_s"
            case settleIntervals = "settle_intervals"
            case minimumSettleSeconds = "minimum_settle_s"
            case slowFactor = "slow_factor"
            case slowEvidenceLosses = "slow_evidence_losses"
        }

        init(_ policy: VerificationPolicy) {
            requiredSightings = policy.requiredSightings
            timeoutSeconds = finite(policy.timeout)
            settleIntervals = policy.settleIntervals
            minimumSettleSeconds = policy.minimumSettle
            slowFactor = policy.slowFactor
            slowEvidenceLosses = policy.slowEvidenceLosses
        }
    }

    struct Identity: Encodable {
        var uuid: String
        var major: Int
        var minor: Int

        init(_ identity: BeaconIdentity) {
            uuid = identity.uuid.description
            major = Int(identity.major)
            minor = Int(identity.minor)
        }
    }

    struct Expected: Encodable {
        /// `calibrated`, `advertised` (auto, value known) or `plausible` (auto, any value in range).
        var measuredPowerRule: String
        var measuredPower: Int?
        var measuredPowerRange: [Int]?
        var intervalMilliseconds: Int
        var address: String?

        enum CodingKeys: String, CodingKey {
            case measuredPowerRule = "measured_power_rule"
            case measuredPower = "measured_power"
            case measuredPowerRange = "measured_power_range"
            case intervalMilliseconds = "interval_ms"
            case address
        }

        init(_ beacon: ExpectedBeacon) {
            switch beacon.measuredPower {
            case .calibrated(let value):
                measuredPowerRule = "calibrated"
                measuredPower = Int(value)
            case .advertised(let value):
                measuredPowerRule = "advertised"
                measuredPower = Int(value)
            case .plausible(let range):
                measuredPowerRule = "plausible"
                measuredPowerRange = [range.lowerBound, range.upperBound]
            }
            intervalMilliseconds = beacon.intervalMilliseconds
            address = beacon.expectedAddress?.description
        }
    }

    struct PowerCount: Encodable {
        var dBm: Int
        var sightings: Int

        enum CodingKeys: String, CodingKey {
            case dBm = "dbm"
            case sightings
        }
    }

    struct Address: Encodable {
        var address: String
        var random: Bool
        var `private`: Bool
        var sightings: Int
        var events: Int
        var shortestGapMilliseconds: Double?
        var firstSeenSeconds: Double?
        var lastSeenSeconds: Double?
        var strongestRSSI: Int?

        enum CodingKeys: String, CodingKey {
            case address, random, `private`, sightings, events
            case shortestGapMilliseconds = "shortest_gap_ms"
            case firstSeenSeconds = "first_seen_s"
            case lastSeenSeconds = "last_seen_s"
            case strongestRSSI = "strongest_rssi"
        }

        init(_ address: AddressObservation) {
            self.address = address.address
            random = address.isRandom
            `private` = address.isPrivate
            sightings = address.sightings
            events = address.events
            shortestGapMilliseconds = address.shortestGap.flatMap { $0.isFinite ? ($0 * 10_000).rounded() / 10 : nil }
            firstSeenSeconds = finite(address.firstSeen)
            lastSeenSeconds = finite(address.lastSeen)
            strongestRSSI = address.strongestRSSI
        }
    }

    struct Receiver: Encodable {
        var receiver: String
        var sightings: Int
        var firstSeenSeconds: Double?
        var lastSeenSeconds: Double?
        var strongestRSSI: Int?
        var meanRSSI: Double?

        enum CodingKeys: String, CodingKey {
            case receiver, sightings
            case firstSeenSeconds = "first_seen_s"
            case lastSeenSeconds = "last_seen_s"
            case strongestRSSI = "strongest_rssi"
            case meanRSSI = "mean_rssi"
        }

        init(_ receiver: ReceiverObservation) {
            self.receiver = receiver.receiver
            sightings = receiver.sightings
            firstSeenSeconds = finite(receiver.firstSeen)
            lastSeenSeconds = finite(receiver.lastSeen)
            strongestRSSI = receiver.strongestRSSI
            // A tenth of a dB: the mean of whole-dB readings carries no more.
            meanRSSI = receiver.meanRSSI.flatMap { $0.isFinite ? ($0 * 10).rounded() / 10 : nil }
        }
    }

    struct Heard: Encodable {
        var sightings: Int
        var firstSeenSeconds: Double?
        var lastSeenSeconds: Double?
        var strongestRSSI: Int?
        var measuredPower: [PowerCount]
        var addresses: [Address]
        var receivers: [Receiver]
        var untrackedReceiverSightings: Int?

        enum CodingKeys: String, CodingKey {
            case sightings, addresses, receivers
            case firstSeenSeconds = "first_seen_s"
            case lastSeenSeconds = "last_seen_s"
            case strongestRSSI = "strongest_rssi"
            case measuredPower = "measured_power"
            case untrackedReceiverSightings = "untracked_receiver_sightings"
        }

        init(_ observation: BeaconObservation) {
            sightings = observation.sightings
            firstSeenSeconds = observation.firstSeen.flatMap(finite)
            lastSeenSeconds = observation.lastSeen.flatMap(finite)
            strongestRSSI = observation.strongestRSSI
            measuredPower = observation.measuredPowers.map { PowerCount(dBm: Int($0.value), sightings: $0.sightings) }
            addresses = observation.addresses.map(Address.init)
            receivers = observation.receiversByStrength.map(Receiver.init)
            untrackedReceiverSightings = observation.untrackedReceiverSightings > 0 ? observation.untrackedReceiverSightings : nil
        }
    }

    struct Finding: Encodable {
        var kind: String
        var message: String
    }

    struct Beacon: Encodable {
        var id: String
        var name: String?
        var zone: String?
        var venue: String
        var identity: Identity
        var status: String
        var message: String
        var decidedAtSeconds: Double?
        var decidedEarly: Bool
        var expected: Expected
        var heard: Heard
        var findings: [Finding]
        var manifest: String?

        enum CodingKeys: String, CodingKey {
            case id, name, zone, venue, identity, status, message, expected, heard, findings, manifest
            case decidedAtSeconds = "decided_at_s"
            case decidedEarly = "decided_early"
        }

        init(_ verdict: BeaconVerdict, result: VerificationResult) {
            let beacon = verdict.beacon
            id = beacon.beaconID
            name = beacon.name
            zone = beacon.zone
            venue = beacon.venueID
            identity = Identity(beacon.identity)
            status = verdict.status.rawValue
            message = verdict.explanation(in: result)
            decidedAtSeconds = finite(verdict.decidedAt)
            decidedEarly = verdict.decidedEarly
            expected = Expected(beacon)
            heard = Heard(verdict.observation)
            findings = verdict.findings.map {
                Finding(kind: $0.status.rawValue, message: $0.explanation(observation: verdict.observation))
            }
            manifest = beacon.location?.description
        }
    }

    struct Unexpected: Encodable {
        var identity: Identity
        var status = VerdictStatus.unexpected.rawValue
        var likelyVenue: String?
        var message: String
        var heard: Heard

        enum CodingKeys: String, CodingKey {
            case identity, status, message, heard
            case likelyVenue = "likely_venue"
        }

        init(_ unexpected: UnexpectedBeacon) {
            identity = Identity(unexpected.identity)
            likelyVenue = unexpected.likelyVenue
            message = unexpected.explanation
            heard = Heard(unexpected.observation)
        }
    }

    struct Other: Encodable {
        var id: String
        var identity: Identity
        var sightings: Int

        init(_ other: OtherManifestBeacon) {
            id = other.beaconID
            identity = Identity(other.identity)
            sightings = other.sightings
        }
    }
}

/// A time in seconds, to the millisecond. JSON has no infinity or NaN: such a value is
/// left out.
private func finite(_ value: Double) -> Double? {
    value.isFinite ? (value * 1000).rounded() / 1000 : nil
}
