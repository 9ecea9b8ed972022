import BeaconTestKit
import BeaconCore
import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

import BeaconFleet
@testable import BeaconCLI

/// One pass with every verdict, and ids that test the escaping of every format.
private func everyVerdict() throws -> VerificationResult {
    let hostile = "till <\"&'|*_`>\u{1}\nnext"
    let beacons = [
        VerificationScript.beacon("door", minor: 1),
        VerificationScript.beacon("window", minor: 2),
        VerificationScript.beacon(hostile, minor: 3, venue: "annex"),
        VerificationScript.beacon("shelf", minor: 4, venue: "annex", mac: "C0:00:00:00:00:04"),
        VerificationScript.beacon("cellar", minor: 5, venue: "annex"),
        VerificationScript.beacon("attic", minor: 6, venue: "annex"),
        VerificationScript.beacon("porch", minor: 7, venue: "annex"),
    ]
    var feed = VerificationFeed(try VerificationScript.plan(beacons), policy: VerificationPolicy(timeout: .seconds(5)))
    feed.play(VerificationScript.train(VerificationScript.identity(minor: 1), address: "C0:00:00:00:00:01", count: 5))
    feed.play(VerificationScript.train(VerificationScript.identity(minor: 3), power: -70, address: "C0:00:00:00:00:03", count: 5))
    feed.play(VerificationScript.train(VerificationScript.identity(minor: 4), address: "C0:00:00:00:00:44", count: 5))
    feed.play(
        VerificationScript.train(VerificationScript.identity(minor: 5), address: "C0:00:00:00:00:05", count: 5)
            + VerificationScript.train(VerificationScript.identity(minor: 5), address: "C0:00:00:00:00:55", from: 0.05, count: 5))
    feed.play(VerificationScript.train(VerificationScript.identity(minor: 6), address: "C0:00:00:00:00:06", every: 1.3, count: 4))
    feed.play([VerificationScript.sighting(VerificationScript.identity(minor: 7), address: "C0:00:00:00:00:07", at: 1)])
    feed.play([VerificationScript.sighting(VerificationScript.identity(minor: 99), address: "C0:00:00:00:00:99", at: 2)])
    feed.advance(to: 5)
    return try #require(feed.result)
}

@Suite("Verification reports")
struct VerificationReportTests {
    @Test("the scripted pass has every verdict")
    func fixtureCoversEveryVerdict() throws {
        let result = try everyVerdict()
        #expect(result.verdicts.map(\.status) == [.ok, .missing, .wrongPower, .wrongAddress, .duplicate, .slow, .weak])
        #expect(result.count(.unexpected) == 1)
    }

    @Test("JUnit: parses as XML, one test case per beacon and per unexpected identity, failures typed")
    func junitParses() throws {
        let result = try everyVerdict()
        let xml = VerificationJUnitReport.render(result)
        let collector = JUnitCollector()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.delegate = collector
        #expect(parser.parse(), "XMLParser: \(parser.parserError.map(String.init(describing:)) ?? "") in\n\(xml)")

        #expect(collector.root["tests"] == "8")
        #expect(collector.root["failures"] == "7")
        #expect(collector.suites.map { $0["name"] } == ["shop", "annex", "unexpected"])
        #expect(collector.cases.count == 8)
        #expect(collector.failures.map { $0["type"] } == [
            "missing", "wrong-power", "wrong-address", "duplicate", "slow", "weak", "unexpected",
        ])
        // Attribute values come back exactly, except the control character XML cannot carry.
        let hostileCase = try #require(collector.cases.first { $0["name"]?.hasPrefix("till") == true })
        #expect(hostileCase["name"] == "till <\"&'|*_`>\u{FFFD}\nnext (\(VerificationScript.identity(minor: 3)))")
        let hostileVerdict = try #require(result.verdicts.first { $0.beacon.beaconID.hasPrefix("till") })
        #expect(collector.failures[1]["message"] == hostileVerdict.explanation(in: result))
    }

    @Test("Markdown: one row per beacon and unexpected identity, six cells each")
    func markdownTable() throws {
        let result = try everyVerdict()
        let markdown = VerificationMarkdownReport.render(result)
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "## beaconctl verify: fleet test — **failed**")
        let rows = lines.filter { $0.hasPrefix("|") }
        #expect(rows.count == 2 + 8, "header, delimiter, 7 beacons, 1 unexpected")
        for row in rows {
            #expect(unescapedPipes(in: row) == 7, "\(row)")
        }
        #expect(rows[1] == "|---|---|---|---|---:|---|")
        #expect(rows.contains { $0.contains("| shop | door | `\(VerificationScript.identity(minor: 1))` | ok | 5 |") })
        #expect(markdown.contains("till \\<\"&amp;'\\|\\*\\_\\`\\>\u{1} next"))
    }

    @Test("JSON: the documented shape")
    func jsonShape() throws {
        let result = try everyVerdict()
        let json = VerificationJSONReport.render(result)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(Set(document.keys) == [
            "schema", "scope", "passed", "end", "duration_s", "policy", "summary", "beacons", "unexpected",
            "other_manifest_beacons",
        ])
        #expect(document["schema"] as? String == "beaconctl.verify/1")
        #expect(document["passed"] as? Bool == false)
        #expect(document["end"] as? String == "timeout")
        #expect(document["duration_s"] as? Double == 5)
        let summary = try #require(document["summary"] as? [String: Int])
        #expect(summary == [
            "expected": 7, "ok": 1, "missing": 1, "weak": 1, "wrong-power": 1, "wrong-address": 1, "duplicate": 1,
            "slow": 1, "unexpected": 1, "sightings": 31, "ignored_sightings": 0, "unlisted_unexpected_sightings": 0,
        ])
        let beacons = try #require(document["beacons"] as? [[String: Any]])
        #expect(beacons.count == 7)
        let door = beacons[0]
        #expect(door["id"] as? String == "door")
        #expect(door["status"] as? String == "ok")
        let identity = try #require(door["identity"] as? [String: Any])
        #expect(identity["uuid"] as? String == VerificationScript.fleetUUID.description)
        #expect(identity["major"] as? Int == 1)
        #expect(identity["minor"] as? Int == 1)
        let heard = try #require(door["heard"] as? [String: Any])
        #expect(heard["sightings"] as? Int == 5)
        #expect(heard["measured_power"] as? [[String: Int]] == [["dbm": -59, "sightings": 5]])
        let address = try #require((heard["addresses"] as? [[String: Any]])?.first)
        #expect(address["address"] as? String == "C0:00:00:00:00:01")
        #expect(address["shortest_gap_ms"] as? Double == 100)
        let expected = try #require(door["expected"] as? [String: Any])
        #expect(expected["measured_power_rule"] as? String == "calibrated")
        #expect(expected["measured_power"] as? Int == -59)

        let missing = beacons[1]
        #expect(missing["status"] as? String == "missing")
        #expect((missing["heard"] as? [String: Any])?["first_seen_s"] == nil, "unknown values are left out")
        let duplicate = beacons[4]
        #expect((duplicate["findings"] as? [[String: String]])?.map { $0["kind"] } == ["duplicate"])
        let unexpected = try #require((document["unexpected"] as? [[String: Any]])?.first)
        #expect(unexpected["status"] as? String == "unexpected")
        #expect(unexpected["likely_venue"] == nil, "major 1 is used by both venues")
    }

    @Test("lost reports: every format carries the count and the warning; without losses, none does")
    func lostReports() throws {
        var lossy = try everyVerdict()
        lossy.lostReports = 190
        let warning = "190 reports were lost between the controller and the verifier (the host could not keep up): "
            + "the missing, weak and slow verdicts may be wrong; verify again on a less loaded host"
        #expect(lossy.lossWarning == warning)
        #expect(VerificationSummary.line(lossy).contains(", 190 lost"))
        #expect(VerificationMarkdownReport.render(lossy).contains("**Warning:** 190 reports were lost"))
        let json = VerificationJSONReport.render(lossy)
        #expect(json.contains("\"lost_reports\" : 190") || json.contains("\"lost_reports\":190"), "\(json)")
        #expect(VerificationJUnitReport.render(lossy).contains("name=\"warning\" value=\"190 reports were lost"))
        let clean = try everyVerdict()
        #expect(!VerificationJSONReport.render(clean).contains("lost_reports"))
        #expect(!VerificationMarkdownReport.render(clean).contains("Warning"))
    }

    @Test("the summary line counts every verdict")
    func summaryLine() throws {
        #expect(VerificationSummary.line(try everyVerdict()) == "7 beacons: 1 ok, 1 missing, 1 weak, 1 wrong-power, "
            + "1 wrong-address, 1 duplicate, 1 slow; 1 unexpected; 31 sightings in 5.0 s (timeout)")
    }

    @Test("JUnit times: seconds with three decimals", arguments: [
        (0.0, "0.000"), (0.5, "0.500"), (12.3456, "12.346"), (Double.infinity, "0"), (-1, "0"),
    ])
    func junitTime(seconds: Double, text: String) {
        #expect(VerificationJUnitReport.time(seconds) == text)
    }

    private func unescapedPipes(in row: Substring) -> Int {
        var count = 0
        var escaped = false
        for character in row {
            if escaped {
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "|" {
                count += 1
            }
        }
        return count
    }
}

/// Collects the JUnit elements' attributes.
private final class JUnitCollector: NSObject, XMLParserDelegate {
    var root: [String: String] = [:]
    var suites: [[String: String]] = []
    var cases: [[String: String]] = []
    var failures: [[String: String]] = []

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String]
    ) {
        switch elementName {
        case "testsuites": root = attributes
        case "testsuite": suites.append(attributes)
        case "testcase": cases.append(attributes)
        case "failure": failures.append(attributes)
        default: break
        }
    }
}
