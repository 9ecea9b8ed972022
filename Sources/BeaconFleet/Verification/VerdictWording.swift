import BeaconCore

/// The sentences reports print: what was found, and what to do about it.
extension BeaconVerdict {
    /// One line: the evidence for `ok`, else every finding with its remedy.
    public func explanation(in result: VerificationResult) -> String {
        switch status {
        case .ok:
            var text = "heard \(VerdictWording.times(observation.sightings))"
            if let address = observation.addresses.first {
                text += " from \(address.address)"
            }
            if let power = observation.measuredPowers.first {
                text += ", measured power \(power.value) dBm"
            } else {
                text += ", measured power not published by its receivers' gateway"
            }
            if let gap = observation.addresses.first?.shortestGap {
                text += ", shortest gap \(VerdictWording.milliseconds(gap))"
            } else if observation.heardOnlyThroughGateways {
                text += ", interval not judged (heard only through gateways that throttle)"
            }
            return text
        case .missing:
            return "not heard in \(VerdictWording.listened(result)): check that it has power and is within "
                + "range of the scanner, then verify again"
        case .weak:
            let remedy = observation.heardOnlyThroughGateways
                ? "listen longer (its receivers' gateways report a beacon once every few seconds at most)"
                : "bring the scanner closer or listen longer"
            return "heard only \(VerdictWording.times(observation.sightings)) (\(result.policy.requiredSightings) needed) "
                + "in \(VerdictWording.listened(result)): \(remedy)"
        case .unmonitored:
            let heard = observation.sightings == 0 ? "not heard" : "heard only \(VerdictWording.times(observation.sightings))"
            return "\(heard) before the input stopped delivering: not judged (its silence was the input's); "
                + "verify again once the input delivers"
        default:
            return findings.map { $0.explanation(observation: observation) }.joined(separator: "; ")
        }
    }
}

extension VerificationFinding {
    public func explanation(observation: BeaconObservation) -> String {
        switch self {
        case .wrongPower(let expected, let heard):
            let values = heard.map { "\($0.value) dBm (\(VerdictWording.times($0.sightings)))" }.joined(separator: ", ")
            let remedy: String
            switch expected {
            case .calibrated: remedy = "reprogram the beacon, or calibrate it again and update measured_power in the manifest"
            case .advertised: remedy = "the advertiser sent another value than it computed: another device may carry this identity"
            case .plausible: remedy = "no real beacon measures that at 1 m: reprogram it, or calibrate it and set measured_power"
            }
            return "measured power \(values) on the air, expected \(expected): \(remedy)"
        case .wrongAddress(let expected, let heard):
            return "heard from \(heard.joined(separator: ", ")), not from the pinned \(expected): another device "
                + "carries this identity, or `mac:` in the manifest is out of date"
        case .duplicate(let addresses):
            let counts = Dictionary(observation.addresses.map { ($0.address, $0.sightings) }, uniquingKeysWith: +)
            let listed = addresses.map { "\($0) (\(counts[$0].map(VerdictWording.times) ?? "heard"))" }
            return "sent by \(addresses.count) devices at once: \(listed.joined(separator: ", ")): a cloned or "
                + "misprogrammed beacon; find the extra device and give it its own identity"
        case .slow(let shortestGap, let gaps, let configured):
            return "advertises every \(VerdictWording.milliseconds(shortestGap)) at best (shortest of "
                + "\(NumberText.count(gaps, "gap"))), configured \(configured) ms: the advertiser does not apply the "
                + "interval, or the scanner misses most packets (bring it closer)"
        }
    }
}

extension UnexpectedBeacon {
    public var explanation: String {
        var text = "uses the fleet's UUID but is not in the manifest; heard \(VerdictWording.times(observation.sightings))"
        let addresses = observation.addresses.map(\.address)
        if !addresses.isEmpty { text += " from \(addresses.joined(separator: ", "))" }
        if let likelyVenue { text += "; major \(identity.major) is venue \(likelyVenue)'s" }
        return text + ": add it to the manifest, or reconfigure the device"
    }
}

/// Number formatting shared by the reports; no locale, so output is the same everywhere.
public enum VerdictWording {
    /// "1 time", "27 times".
    public static func times(_ count: Int) -> String { NumberText.count(count, "time") }

    /// "102 ms" from seconds.
    public static func milliseconds(_ seconds: Double) -> String {
        // Gaps come from sighting times, which come from outside: never a trapping conversion.
        guard let milliseconds = Int64(checked: seconds * 1000) else { return seconds < 0 ? "-∞ ms" : "∞ ms" }
        return "\(milliseconds) ms"
    }

    /// "102 ms" from a span (a gap between advertising events).
    public static func milliseconds(_ span: Duration) -> String { milliseconds(span.instantSeconds) }

    /// "2.3 s" from a span, one decimal.
    public static func seconds(_ span: Duration) -> String { seconds(span.instantSeconds) }

    /// "2.3 s" from seconds, one decimal.
    public static func seconds(_ seconds: Double) -> String {
        guard let tenths = Int64(checked: seconds * 10) else { return seconds < 0 ? "-∞ s" : "∞ s" }
        let sign = tenths < 0 ? "-" : ""
        return "\(sign)\(abs(tenths) / 10).\(abs(tenths) % 10) s"
    }

    /// "store-a:hci0 12× -61 dBm, store-b:hci0 4× -78 dBm": who heard it, the strongest on
    /// average first (the nearest receiver, usually), with the mean RSSI when reported.
    public static func receivers(_ observation: BeaconObservation) -> String {
        var parts = observation.receiversByStrength.map { receiver in
            "\(receiver.receiver) \(receiver.sightings)×" + (receiver.meanRSSI.map { " \(dBm($0))" } ?? "")
        }
        if observation.untrackedReceiverSightings > 0 {
            parts.append("\(observation.untrackedReceiverSightings)× by further receivers")
        }
        return parts.joined(separator: ", ")
    }

    /// "-61 dBm" from a mean, rounded to a whole dBm.
    static func dBm(_ value: Double) -> String {
        guard let rounded = Int64(checked: value.rounded()) else { return "? dBm" }
        return "\(rounded) dBm"
    }

    /// "10.0 s", or "the 12.3 s of input" when the input ended first.
    static func listened(_ result: VerificationResult) -> String {
        result.endReason == .inputEnded ? "the \(seconds(result.duration)) of input" : seconds(result.duration)
    }
}
