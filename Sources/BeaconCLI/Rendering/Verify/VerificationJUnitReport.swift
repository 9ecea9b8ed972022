import BeaconCore
import BeaconFleet

/// The JUnit XML report, for CI systems: one test suite per venue, one test case per
/// expected beacon (failing unless `ok`), and a suite `unexpected` with one failing case
/// per identity nobody expected. Layout as read by Jenkins, GitLab and GitHub reporters
/// (the de-facto schema of Ant's JUnit task). Written as the verdicts come.
package final class VerificationJUnitReport: StreamedVerificationReport {
    private let sink: ReportSink
    /// The venue whose suite is open.
    private var openVenue: String?
    let groupsByVenue = true

    init(_ sink: ReportSink) {
        self.sink = sink
    }

    /// The whole report as one string (tests, small results).
    /// (Package-wide: the fuzz targets render every report too.)
    package static func render(_ result: VerificationResult) -> String {
        let sink = ReportSink.kept()
        VerificationReportPass.write(result, to: [VerificationJUnitReport(sink)])
        return sink.text
    }

    func begin(_ context: VerificationReportContext) {
        let result = context.result
        let failures = context.venues.reduce(0) { $0 + $1.failures } + result.unexpected.count
        let tests = result.verdicts.count + result.unexpected.count
        sink.write(#"<?xml version="1.0" encoding="UTF-8"?>"# + "\n")
        sink.write("<testsuites" + Self.attributes([
            ("name", "beaconctl verify"), ("tests", "\(tests)"), ("failures", "\(failures)"), ("errors", "0"),
            ("time", Self.time(result.duration.instantSeconds)),
        ]) + ">\n")
    }

    func beacon(_ verdict: BeaconVerdict, explanation: String, context: VerificationReportContext) {
        let venueID = verdict.beacon.venueID
        if venueID != openVenue {
            if openVenue != nil { sink.write("  </testsuite>\n") }
            openVenue = venueID
            let venue = context.venue(venueID) ?? .init(id: venueID)
            sink.write(Self.suite(
                name: venueID, tests: venue.beacons, failures: venue.failures, time: venue.lastDecided.seconds,
                scope: context.result.scope, warnings: context.warnings))
        }
        sink.write(Self.testCase(verdict, explanation: explanation))
    }

    func end(_ context: VerificationReportContext) {
        let result = context.result
        if openVenue != nil { sink.write("  </testsuite>\n") }
        if !result.unexpected.isEmpty {
            sink.write(Self.suite(
                name: "unexpected", tests: result.unexpected.count, failures: result.unexpected.count,
                time: result.duration.instantSeconds, scope: result.scope, warnings: context.warnings))
            for unexpected in result.unexpected {
                sink.write("    <testcase" + Self.attributes([
                    ("name", unexpected.identity.description), ("classname", "unexpected"), ("time", "0"),
                ]) + ">\n")
                sink.write("      <failure" + Self.attributes([("type", "unexpected"), ("message", unexpected.explanation)]) + "/>\n")
                sink.write("    </testcase>\n")
            }
            sink.write("  </testsuite>\n")
        }
        sink.write("</testsuites>\n")
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

    private static func testCase(_ verdict: BeaconVerdict, explanation: String) -> String {
        let beacon = verdict.beacon
        let xml = "    <testcase" + attributes([
            ("name", "\(beacon.beaconID) (\(beacon.identity))"), ("classname", beacon.venueID),
            ("time", time(verdict.decidedAt.seconds)),
        ])
        let batteryText = verdict.battery.map { "; " + $0.summary } ?? ""
        guard verdict.passed else {
            return xml + failure(verdict, explanation: explanation, batteryText: batteryText)
        }
        return xml + ">\n      <system-out>" + XMLText.escaped(explanation + batteryText, inAttribute: false)
            + "</system-out>\n    </testcase>\n"
    }

    /// The failing case's body: the verdict's finding, or the battery's when the identity is ok.
    private static func failure(_ verdict: BeaconVerdict, explanation: String, batteryText: String) -> String {
        let beacon = verdict.beacon
        var xml = ">\n"
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
        if let battery = verdict.battery { details.append(battery.summary) }
        let type = verdict.status != .ok ? verdict.status.rawValue : verdict.battery?.status.rawValue ?? verdict.status.rawValue
        let message = verdict.status != .ok ? explanation : explanation + batteryText
        xml += "      <failure" + attributes([("type", type), ("message", message)]) + ">"
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
