import BeaconCore
import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif
import VirtualRadio

import BeaconFleet
@testable import BeaconCLI

/// Collects what an XML parser saw: element names, text, and the first error.
final class XMLCollector: NSObject, XMLParserDelegate {
    var elements: [String] = []
    var text = ""
    var error: Error?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        elements.append(elementName)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) { error = error ?? parseError }

    static func parse(_ document: String) -> XMLCollector {
        let collector = XMLCollector()
        let parser = XMLParser(data: Data(document.utf8))
        parser.delegate = collector
        if !parser.parse(), collector.error == nil { collector.error = parser.parserError }
        return collector
    }
}

@Suite("Coverage pictures and pages")
struct CoverageRenderingTests {
    let venue = CoverageVenue(
        id: "shop", name: "Tom & Jerry's <Corner> Shop", plan: PlanSize(width: 12, height: 8),
        beacons: [
            CoverageBeacon(id: "door", zone: "entrance", position: PlanPoint(x: 6, y: 0.5), txPower: 0, measuredPower: -41),
            CoverageBeacon(id: "till & counter", position: PlanPoint(x: 2, y: 6), txPower: -8, measuredPower: -61),
            CoverageBeacon(id: "back<room>", position: PlanPoint(x: 11.5, y: 7.5), txPower: -20, measuredPower: -61),
        ])

    /// Levels chosen so that the small shop has dead, marginal, covered and crowded cells.
    func map(walls: [Obstacle] = []) throws -> CoverageMap {
        var settings = CoverageSettings(threshold: -62, deadBelow: -68)
        settings.environment.obstacles = walls
        settings.crowdedThreshold = -80
        return try #require(CoverageMap(venue: venue, settings: settings))
    }

    @Test("the SVG is well-formed XML naming every beacon, with title, key and scale bar")
    func svgIsWellFormedAndComplete() throws {
        let wall = Obstacle(from: PlanPoint(x: 8, y: 0), to: PlanPoint(x: 8, y: 6), attenuation: 25)
        let svg = CoverageSVG(map: try map(walls: [wall])).render()
        let parsed = XMLCollector.parse(svg)
        #expect(parsed.error == nil, "\(String(describing: parsed.error))")
        #expect(parsed.elements.first == "svg")
        for id in venue.beacons.map(\.id) {
            #expect(parsed.text.contains(id), "beacon \(id) is not labelled")
        }
        #expect(parsed.text.contains("Coverage of Tom & Jerry's <Corner> Shop"))
        #expect(parsed.text.contains("strongest beacon's mean RSSI (dBm)"))
        #expect(parsed.text.contains("dead zone: nothing at \u{2212}68 dBm or better"))
        #expect(parsed.text.contains("wall, 25 dB"))
        for part in ["id=\"heat-map\"", "id=\"plan-border\"", "id=\"beacons\"", "id=\"key\"", "id=\"walls\"", "id=\"dead-zones\"", "id=\"crowded-zones\""] {
            #expect(svg.contains(part), "missing \(part)")
        }
        // The scale bar ends on a round length.
        #expect(parsed.text.contains("2 m") || parsed.text.contains("5 m"))
    }

    @Test("the HTML page embeds the SVG and the summary")
    func htmlEmbedsSVGAndSummary() throws {
        let map = try map()
        let html = CoverageHTML(map: map, summary: map.summary).render()
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(!html.contains("<?xml"))
        #expect(html.contains("<title>Coverage of Tom &amp; Jerry&apos;s &lt;Corner&gt; Shop</title>"))
        #expect(html.contains("<code>till &amp; counter</code>"))
        #expect(html.contains("<h2>Summary</h2>"))
        #expect(html.contains("<h2>Ties for nearest</h2>"))
        // The page's <svg> element alone must parse too.
        let start = try #require(html.range(of: "<svg "))
        let end = try #require(html.range(of: "</svg>"))
        #expect(XMLCollector.parse(String(html[start.lowerBound..<end.upperBound])).error == nil)
    }

    @Test("the colour bands step by 5 dB from the threshold, dead and marginal below")
    func colourBands() {
        let scale = CoverageColorScale(threshold: -85, deadBelow: -90)
        #expect(scale.band(for: -95) == scale.deadBand)
        #expect(scale.band(for: -90) == scale.marginalBand)
        #expect(scale.band(for: -85.01) == scale.marginalBand)
        #expect(scale.band(for: -85) == 2)
        #expect(scale.band(for: -80.5) == 2)
        #expect(scale.band(for: -80) == 3)
        #expect(scale.band(for: -20) == scale.bands.count - 1)
        #expect(scale.band(for: -.infinity) == scale.deadBand)
        #expect(scale.bands.map(\.lower) == [nil, -90, -85, -80, -75, -70, -65, -60, -55])
    }

    @Test("scale bars and ticks use round lengths", arguments: [
        (0.7, 0.5), (0.8, 1.0), (3.0, 2.0), (4.0, 5.0), (12.0, 10.0), (16.0, 20.0), (40.0, 50.0), (140.0, 100.0),
    ])
    func niceLengths(target: Double, expected: Double) {
        #expect(CoverageSVG.niceLength(near: target) == expected)
    }

    @Test("text from the manifest is escaped for XML, control characters replaced")
    func xmlEscaping() {
        #expect(xmlEscaped("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&apos;")
        #expect(xmlEscaped("bell\u{7}") == "bell\u{FFFD}")
        // Character references: valid both in attributes (where raw ones would be normalised) and in text.
        #expect(xmlEscaped("tab\tline\n") == "tab&#9;line&#10;")
    }
}

@Suite("Coverage numbers")
struct CoverageNumberTextTests {
    @Test func numbersAreWrittenWithoutExponentsOrTrailingZeros() {
        #expect(numberText(12) == "12")
        #expect(numberText(12.5) == "12.5")
        #expect(numberText(0.25) == "0.25")
        #expect(numberText(-3.14159) == "-3.14")
        #expect(numberText(1e-7) == "0")
        #expect(numberText(-0.001) == "0")
        #expect(numberText(0.05, places: 1) == "0.1")
        #expect(numberText(123456.789) == "123456.79")
        #expect(dBmText(-85) == "\u{2212}85 dBm")
    }
}
