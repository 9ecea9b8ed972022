import BeaconCore
import BeaconFleet

/// The JUnit XML report, for CI systems: one test suite per venue, one test case per
/// expected beacon (failing unless `ok`), and a suite `unexpected` with one failing case
/// per identity nobody expected. Layout as read by Jenkins, GitLab and GitHub reporters
/// (the de-facto schema of Ant's JUnit task).
public enum VerificationJUnitReport {
    public static func render(_ result: VerificationResult) -> String {
        let failures = result.verdicts.count { $0.status != .ok } + result.unexpected.count
        let tests = result.verdicts.count + result.unexpected.count
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += "<testsuites" + attributes([
            ("name", "beaconctl verify"), ("tests", "\(tests)"), ("failures", "\(failures)"), ("errors", "0"),
            ("time", time(result.duration)),
        ]) + ">\n"
        for (venue, verdicts) in result.verdictsByVenue {
            xml += suite(
                name: venue, tests: verdicts.count, failures: verdicts.count { $0.status != .ok },
                time: verdicts.map(\.decidedAt).max() ?? 0, scope: result.scope, warnings: result.warnings)
            for verdict in verdicts {
                xml += testCase(verdict, result: result)
            }
            xml += "  </testsuite>\n"
        }
        if !result.unexpected.isEmpty {
            xml += suite(
                name: "unexpected", tests: result.unexpected.count, failures: result.unexpected.count,
                time: result.duration, scope: result.scope, warnings: result.warnings)
            for unexpected in result.unexpected {
                xml += "    <testcase" + attributes([
                    ("name", unexpected.identity.description), ("classname", "unexpected"), ("time", "0"),
                ]) + ">\n"
                xml += "      <failure" + attributes([("type", "unexpected"), ("message", unexpected.explanation)]) + "/>\n"
                xml += "    </testcase>\n"
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    private static func suite(name: String, tests: Int, failures: Int, time seconds: Double, scope: String, warnings: [String]) -> String {
        var properties = "      <property" + attributes([("name", "scope"), ("value", scope)]) + "/>\n"
        for warning in warnings {
            properties += "      <property" + attributes([("name", "warning"), ("value", warning)]) + "/>\n"
        }
        return "  <testsuite" + attributes([
            ("name", name), ("tests", "\(tests)"), ("failures", "\(failures)"), ("errors", "0"), ("skipped", "0"),
            ("time", time(seconds)),
        ]) + ">\n" + "    <properties>\n" + properties + "    </properties>\n"
    }

    private static func testCase(_ verdict: BeaconVerdict, result: VerificationResult) -> String {
        let beacon = verdict.beacon
        var xml = "    <testcase" + attributes([
            ("name", "\(beacon.beaconID) (\(beacon.identity))"), ("classname", beacon.venueID),
            ("time", time(verdict.decidedAt)),
        ])
        let explanation = verdict.explanation(in: result)
        guard verdict.status != .ok else {
            return xml + ">\n      <system-out>" + XMLText.escaped(explanation, inAttribute: false)
                + "</system-out>\n    </testcase>\n"
        }
        xml += ">\n"
        var details: [String] = []
        if let location = beacon.location { details.append("defined at \(location)") }
        details.append("expected measured power \(beacon.measuredPower), interval \(beacon.intervalMilliseconds) ms"
            + (beacon.expectedAddress.map { ", address \($0)" } ?? ""))
        for address in verdict.observation.addresses {
            details.append("heard \(VerdictWording.times(address.sightings)) from \(address.address)"
                + (address.shortestGap.map { ", shortest gap \(VerdictWording.milliseconds($0))" } ?? ""))
        }
        if !verdict.observation.receivers.isEmpty {
            details.append("heard by " + VerdictWording.receivers(verdict.observation))
        }
        xml += "      <failure" + attributes([("type", verdict.status.rawValue), ("message", explanation)]) + ">"
        xml += XMLText.escaped(details.joined(separator: "\n"), inAttribute: false)
        return xml + "</failure>\n    </testcase>\n"
    }

    private static func attributes(_ pairs: [(String, String)]) -> String {
        pairs.map { " \($0.0)=\"\(XMLText.escaped($0.1, inAttribute: true))\"" }.joined()
    }

    /// Seconds with millisecond precision, as JUnit readers expect (no unit, dot decimal).
    static func time(_ seconds: Double) -> String {
        guard seconds >= 0, let milliseconds = Int64(checked: seconds * 1000) else { return "0" }
        let fraction = String(milliseconds % 1000)
        return "\(milliseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
