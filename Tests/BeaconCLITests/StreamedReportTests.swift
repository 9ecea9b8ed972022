import BeaconTestKit
import BeaconCore
import Foundation
import Synchronization
import Testing

import BeaconFleet
@testable import BeaconCLI

/// A pass whose venues are apart in the manifest (door, then the annex, then the shop again),
/// heard by two receivers, with an unexpected identity, a manifest beacon outside the pass,
/// lost reports and a hostile id: every branch the streamed reports take.
private func scatteredPass() throws -> VerificationResult {
    let beacons = [
        VerificationScript.beacon("door", minor: 1),
        VerificationScript.beacon("till \"<&>\"\u{1}\\/ é😀", minor: 2, venue: "annex", power: .plausible(-100 ... -30)),
        VerificationScript.beacon("window", minor: 3),
        VerificationScript.beacon("shelf", minor: 4, venue: "annex", mac: "C0:00:00:00:00:04"),
        VerificationScript.beacon("cellar", minor: 5, venue: "shop"),
    ]
    let other = VerificationScript.identity(minor: 40)
    var feed = VerificationFeed(
        try VerificationScript.plan(beacons, otherKnown: [other: "elsewhere"]), policy: VerificationPolicy(timeout: .seconds(5)))
    feed.play(VerificationScript.train(VerificationScript.identity(minor: 1), address: "C0:00:00:00:00:01", count: 5))
    feed.play(VerificationScript.train(VerificationScript.identity(minor: 1), address: "C0:00:00:00:00:01", count: 3, rssi: -80, receiver: "back-room"))
    feed.play(VerificationScript.train(VerificationScript.identity(minor: 2), power: -71, address: "C0:00:00:00:00:02", count: 5))
    feed.play(VerificationScript.train(VerificationScript.identity(minor: 4), address: "C0:00:00:00:00:44", count: 5, rssi: nil))
    feed.play(
        VerificationScript.train(VerificationScript.identity(minor: 5), address: "C0:00:00:00:00:05", count: 5)
            + VerificationScript.train(VerificationScript.identity(minor: 5), address: "C0:00:00:00:00:55", from: 0.05, count: 5))
    feed.play([VerificationScript.sighting(other, address: "C0:00:00:00:00:40", at: 1)])
    feed.play([VerificationScript.sighting(VerificationScript.identity(minor: 99), address: "C0:00:00:00:00:99", at: 2)])
    feed.advance(to: 5)
    var result = try #require(feed.result)
    result.lostReports = 3
    return result
}

/// Any JSON value, decoded and encoded again: what JSONEncoder writes for a document is the
/// canonical form the streamed report must match byte for byte.
private enum JSONValue: Codable, Equatable {
    case null, bool(Bool), integer(Int), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let flag = try? container.decode(Bool.self) { self = .bool(flag) }
        else if let integer = try? container.decode(Int.self) { self = .integer(integer) }
        else if let number = try? container.decode(Double.self) { self = .number(number) }
        else if let text = try? container.decode(String.self) { self = .string(text) }
        else if let array = try? container.decode([JSONValue].self) { self = .array(array) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .integer(let integer): try container.encode(integer)
        case .number(let number): try container.encode(number)
        case .string(let text): try container.encode(text)
        case .array(let array): try container.encode(array)
        case .object(let object): try container.encode(object)
        }
    }
}

@Suite("Streamed verification reports")
struct StreamedReportTests {
    @Test("the JSON report is, byte for byte, what JSONEncoder writes for the same document")
    func jsonIsTheEncodersDocument() throws {
        let json = VerificationJSONReport.render(try scatteredPass())
        #expect(json.hasSuffix("}\n"))
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
        let encoded = try JSONOutput.document(value) + "\n"
        #expect(encoded == json)
        guard case .object(let document) = value else {
            Issue.record("not an object")
            return
        }
        #expect(document["warnings"] != nil, "lost reports warn")
        #expect(document["other_manifest_beacons"] == .array([
            .object(["id": .string("elsewhere"), "identity": .object([
                "major": .integer(1), "minor": .integer(40), "uuid": .string(VerificationScript.fleetUUID.description),
            ]), "sightings": .integer(1)]),
        ]))
    }

    @Test(
        "strings and numbers are written as JSONEncoder writes them",
        arguments: [
            "", "plain", "quote \" and backslash \\ and slash /", "\u{7F} delete", "é, 😀, e\u{301}",
            String(String.UnicodeScalarView((0..<0x20).compactMap(Unicode.Scalar.init))),
        ])
    func stringsAsTheEncoderWritesThem(_ text: String) throws {
        #expect("[" + StreamingJSONWriter.quoted(text) + "]" == (try JSONOutput.line([text])))
    }

    @Test("numbers are written as JSONEncoder writes them", arguments: [0, -0.0, 0.505, -61.3, 1e-5, 0.1 + 0.2, 123_456_789.125, 1e20, -1e-300, 100])
    func numbersAsTheEncoderWritesThem(_ number: Double) throws {
        #expect("[" + StreamingJSONWriter.number(number) + "]" == (try JSONOutput.line([number])))
    }

    @Test("several reports in one walk are each what it would be alone")
    func severalReportsInOnePass() throws {
        let result = try scatteredPass()
        let plain = Style(choice: .never, isTerminal: false, environment: [:])
        let sinks = (0..<4).map { _ in ReportSink.kept() }
        VerificationReportPass.write(result, to: [
            VerificationJSONReport(sinks[0]), VerificationJUnitReport(sinks[1]), VerificationMarkdownReport(sinks[2]),
            VerifyTextReport(sinks[3], style: plain),
        ])
        #expect(sinks[0].text == VerificationJSONReport.render(result))
        #expect(sinks[1].text == VerificationJUnitReport.render(result))
        #expect(sinks[2].text == VerificationMarkdownReport.render(result))
        #expect(sinks[3].text == VerifyTextReport.render(result, style: plain))
    }

    @Test("venues apart in the manifest: JUnit and text list each venue once, JSON and Markdown keep manifest order")
    func venuesApart() throws {
        let result = try scatteredPass()
        let context = VerificationReportContext(result)
        #expect(context.venues.map(\.id) == ["shop", "annex"])
        #expect(context.venues.map(\.beacons) == [3, 2])
        #expect(context.venueOrder == [0, 2, 4, 1, 3])
        #expect(context.showsReceivers)

        let junit = VerificationJUnitReport.render(result)
        #expect(junit.components(separatedBy: "<testsuite ").count - 1 == 3, "shop, annex and unexpected")
        let classes = junit.split(separator: "\n").filter { $0.contains("<testcase") && !$0.contains("unexpected") }
            .map { $0.contains("classname=\"shop\"") ? "shop" : "annex" }
        #expect(classes == ["shop", "shop", "shop", "annex", "annex"])

        let plain = Style(choice: .never, isTerminal: false, environment: [:])
        let text = VerifyTextReport.render(result, style: plain)
        #expect(text.split(separator: "\n").filter { $0 == "shop" || $0 == "annex" } == ["shop", "annex"])

        let markdown = VerificationMarkdownReport.render(result)
        let rows = markdown.split(separator: "\n").filter { $0.hasPrefix("| shop") || $0.hasPrefix("| annex") }
        #expect(rows.map { $0.hasPrefix("| shop") ? "shop" : "annex" } == ["shop", "annex", "shop", "annex", "shop"])
    }

    @Test("standard output gets the report in pieces of bounded size, never the whole")
    func piecesAreBounded() throws {
        let pieces = PieceRecorder()
        let console = Console(
            standardOutputIsTerminal: false, standardErrorIsTerminal: false, environment: [:],
            writeOutput: { pieces.append($0) }, writeError: { _ in })
        let sink = ReportSink.console(console)
        let line = String(repeating: "é😀x", count: 100) + "\n"
        for _ in 0..<2_000 { sink.write(line) }
        try sink.finish()
        let received = pieces.all
        #expect(received.count > 5)
        #expect(received.allSatisfy { $0.utf8.count < ReportSink.pieceBytes + line.utf8.count })
        #expect(received.joined() == String(repeating: line, count: 2_000))
    }

    @Test("a report file takes the place of the old one only once it is complete; an unfinished one leaves nothing")
    func reportFileIsReplacedWhole() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("streamed-report-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/audit.json"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))

        do {
            let unfinished = try ReportSink.file(path)
            unfinished.write(String(repeating: "x", count: 3 * ReportSink.pieceBytes))
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["audit.json"])

        let sink = try ReportSink.file(path)
        let text = VerificationJSONReport.render(try scatteredPass())
        VerificationReportPass.write(try scatteredPass(), to: [VerificationJSONReport(sink)])
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        try sink.finish()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["audit.json"])

        #expect(throws: (any Error).self) { try ReportSink.file(folder + "/missing-folder/audit.json") }
    }
}

/// What a console was handed, piece by piece.
private final class PieceRecorder: Sendable {
    private let pieces = Mutex<[String]>([])
    func append(_ piece: String) { pieces.withLock { $0.append(piece) } }
    var all: [String] { pieces.withLock { $0 } }
}
