import BeaconCore
import Foundation
import Testing

@testable import FleetManifest

/// The example fleets, `FleetExport` (CSV, JSON) and `FleetImport` (CSV → manifest).
@Suite struct ExportImportTests {
    // MARK: Fixtures

    /// The package's `fleets/` folder, found from this file's place in the source tree.
    private static let fleetsFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fleets")

    private static let exampleFiles = ["jays-donuts.yaml", "museum.yaml", "department-store.yaml"]

    private static let uuid = "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3"

    private static let header = "fleet,venue,beacon,name,zone,uuid,major,minor,measured_power,interval_ms,tx_power,x,y,host,mac\r\n"

    private static func beacon(
        id: String = "cupertino-register", name: String? = "Register", zone: String? = "register",
        major: UInt16 = 1, minor: UInt16 = 2, measuredPower: MeasuredPower = .dBm(-59),
        position: PlanPoint? = PlanPoint(x: 3.5, y: 12), host: String? = "pi-1",
        mac: String? = "C4:92:D3:8E:BC:BB"
    ) throws -> ResolvedBeacon {
        ResolvedBeacon(
            id: id, name: name, zone: zone, venueID: "cupertino", fleetName: "jays-donuts",
            identity: BeaconIdentity(uuid: try ProximityUUID(parsing: uuid), major: major, minor: minor),
            measuredPower: measuredPower, intervalMilliseconds: 100, txPower: -8, position: position,
            host: host, expectedAddress: mac.flatMap(BluetoothAddress.init),
            location: FleetManifest.SourceLocation(file: "fleet.yaml", line: 1, column: 1))
    }

    /// Everything but `location`, which necessarily differs between the original manifest
    /// and the one written by the import.
    private struct BeaconValues: Equatable, CustomStringConvertible {
        var values: [String]
        init(_ beacon: ResolvedBeacon) {
            values = [
                beacon.fleetName, beacon.venueID, beacon.id, beacon.name ?? "∅", beacon.zone ?? "∅",
                beacon.identity.description, beacon.measuredPower.description,
                String(beacon.intervalMilliseconds), String(beacon.txPower),
                beacon.position.map { "\($0.x),\($0.y)" } ?? "∅", beacon.host ?? "∅",
                beacon.expectedAddress?.description ?? "∅",
            ]
        }
        var description: String { values.joined(separator: " | ") }
    }

    private func loadManifest(_ yaml: String, name: String = "imported.yaml") -> ManifestLoadResult {
        ManifestLoader.load(sources: [(name, Array(yaml.utf8))])
    }

    private func importCSV(_ csv: String) -> (yaml: String?, diagnostics: [Diagnostic]) {
        FleetImport.manifest(fromCSV: csv, file: "beacons.csv")
    }

    private func keys(_ diagnostics: [Diagnostic]) -> [String] {
        diagnostics.map { "\($0.location.line):\($0.location.column) \($0.code)" }
    }

    // MARK: The example fleets

    @Test(arguments: exampleFiles)
    func exampleFleetValidatesWithoutAnyDiagnostic(_ file: String) {
        let result = ManifestLoader.load(paths: [Self.fleetsFolder.appendingPathComponent(file).path])
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.rendered).joined(separator: "\n"))")
        #expect(!result.fleet.beacons.isEmpty)
    }

    @Test func theExampleFolderIsOneCleanNamespace() {
        let result = ManifestLoader.load(paths: [Self.fleetsFolder.path])
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.rendered).joined(separator: "\n"))")
        #expect(result.fleet.beacons.count == 19 + 25 + 32)
        #expect(Set(result.fleet.beacons.map(\.fleetName)) == ["jays-donuts", "harbourside-museum", "beaumont"])
        #expect(result.fleet.regions.count == 4 + 6 + 5)
    }

    // MARK: CSV export

    @Test func csvHasTheHeaderAndOneRecordPerBeaconInColumnOrder() throws {
        let csv = FleetExport.csv([
            try Self.beacon(),
            try Self.beacon(id: "cupertino-door", name: nil, zone: nil, minor: 1, measuredPower: .auto,
                            position: nil, host: nil, mac: nil),
        ])
        #expect(csv == Self.header
            + "jays-donuts,cupertino,cupertino-register,Register,register,\(Self.uuid),1,2,-59,100,-8,3.5,12,pi-1,C4:92:D3:8E:BC:BB\r\n"
            + "jays-donuts,cupertino,cupertino-door,,,\(Self.uuid),1,1,auto,100,-8,,,,\r\n")
    }

    @Test func csvOfNoBeaconsIsTheHeaderAlone() {
        #expect(FleetExport.csv([]) == Self.header)
    }

    @Test(arguments: [
        ("Harbour, east", "\"Harbour, east\""),
        ("The \"Lady Margaret\"", "\"The \"\"Lady Margaret\"\"\""),
        ("two\nlines", "\"two\nlines\""),
        ("carriage\rreturn", "\"carriage\rreturn\""),
        ("plain text", "plain text"),
        (" spaces kept ", " spaces kept "),
        ("Café Ø", "Café Ø"),
    ])
    func csvQuotesCellsWithCommasQuotesAndLineBreaks(_ name: String, _ written: String) throws {
        let csv = FleetExport.csv([try Self.beacon(name: name)])
        let record = try #require(csv.split(separator: "\r\n", omittingEmptySubsequences: false).dropFirst().first)
        #expect(record.hasPrefix("jays-donuts,cupertino,cupertino-register,\(written),register,"))
        // …and reads back as the same text.
        let records = try CSVReader.records(in: csv).get()
        #expect(records.count == 2)
        #expect(records.last?.cells[3].text == name)
    }

    // MARK: JSON export

    @Test func jsonHasOneObjectPerBeaconWithEveryKeyInColumnOrder() throws {
        let json = FleetExport.json([
            try Self.beacon(),
            try Self.beacon(id: "door", name: nil, zone: nil, minor: 1, measuredPower: .auto, position: nil, host: nil, mac: nil),
        ])
        #expect(json == """
            [
              {"fleet": "jays-donuts", "venue": "cupertino", "beacon": "cupertino-register", "name": "Register", "zone": "register", "uuid": "\(Self.uuid)", "major": 1, "minor": 2, "measured_power": -59, "interval_ms": 100, "tx_power": -8, "x": 3.5, "y": 12, "host": "pi-1", "mac": "C4:92:D3:8E:BC:BB"},
              {"fleet": "jays-donuts", "venue": "cupertino", "beacon": "door", "name": null, "zone": null, "uuid": "\(Self.uuid)", "major": 1, "minor": 1, "measured_power": "auto", "interval_ms": 100, "tx_power": -8, "x": null, "y": null, "host": null, "mac": null}
            ]

            """)
        #expect(FleetExport.json([]) == "[]\n")
    }

    @Test func jsonEscapesQuotesBackslashesAndControlCharacters() throws {
        let json = FleetExport.json([try Self.beacon(name: "a \"b\" \\ c\nd\te\u{1}")])
        #expect(json.contains(#""name": "a \"b\" \\ c\nd\te\u0001""#))
        let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]]
        #expect(parsed?.first?["name"] as? String == "a \"b\" \\ c\nd\te\u{1}")
        #expect(parsed?.first?["x"] as? Double == 3.5)
    }

    @Test func exportedExampleFleetsAreValidJSON() throws {
        let result = ManifestLoader.load(paths: [Self.fleetsFolder.path])
        let json = FleetExport.json(result.fleet.beacons)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(parsed.count == result.fleet.beacons.count)
        #expect(parsed.allSatisfy { Set($0.keys) == Set(ExportColumn.allCases.map(\.name)) })
    }

    // MARK: Reading CSV

    @Test func readerAcceptsLFAndCRLFAndSkipsABOMAndEmptyLines() throws {
        let records = try CSVReader.records(in: "\u{FEFF}a,b\r\n\r\nc,\"d\r\ne\"\n\nf,g").get()
        #expect(records.map { $0.cells.map(\.text) } == [["a", "b"], ["c", "d\r\ne"], ["f", "g"]])
        #expect(records.map(\.line) == [1, 3, 6])
        // The cell after a quoted line break starts where an editor shows it.
        #expect(records[2].cells[1].line == 6 && records[2].cells[1].column == 3)
    }

    @Test func readerKeepsEmptyCellsIncludingATrailingOne() throws {
        let records = try CSVReader.records(in: "a,,\"\",\nb,c,d,").get()
        #expect(records.map { $0.cells.map(\.text) } == [["a", "", "", ""], ["b", "c", "d", ""]])
    }

    @Test(arguments: [
        ("a,\"open\nb,c\n", CSVSyntaxError.Kind.unterminatedQuote, 1, 3),
        ("a,b\nc,d\"e\n", .quoteInUnquotedCell, 2, 4),
        ("a,\"b\"c,d\n", .textAfterClosingQuote("c"), 1, 6),
    ])
    func readerRefusesMalformedQuoting(_ text: String, _ kind: CSVSyntaxError.Kind, _ line: Int, _ column: Int) {
        #expect(CSVReader.records(in: text) == .failure(CSVSyntaxError(kind: kind, line: line, column: column)))
    }

    // MARK: Importing: the CSV's shape

    @Test func unterminatedQuoteIsReportedAtTheOpeningQuote() {
        let result = importCSV(Self.header + "jays-donuts,cupertino,b1,\"Register,register,\(Self.uuid),1,2,,,,,,,\r\n")
        #expect(result.yaml == nil)
        #expect(keys(result.diagnostics) == ["2:26 csv-syntax"])
        #expect(result.diagnostics.first?.message.contains("never closed") == true)
    }

    @Test func anEmptyFileHasNoHeader() {
        #expect(keys(importCSV("").diagnostics) == ["1:1 csv-missing-header"])
        #expect(keys(importCSV("\n\n").diagnostics) == ["1:1 csv-missing-header"])
    }

    @Test func aHeaderWithoutRowsIsReported() {
        #expect(keys(importCSV(Self.header).diagnostics) == ["1:1 csv-no-rows"])
    }

    @Test func unknownColumnsAreNamedTogether() throws {
        let result = importCSV("fleet,venue,beacon,uuid,major,colour,minor,floor\njays,v,b,\(Self.uuid),1,red,2,3\n")
        #expect(result.yaml == nil)
        let problem = try #require(result.diagnostics.first)
        #expect(keys(result.diagnostics) == ["1:31 csv-unknown-column"])
        #expect(problem.message == "unknown columns `colour`, `floor` in the header")
    }

    @Test func duplicateAndMissingColumnsAreReported() {
        let result = importCSV("fleet,venue,beacon,uuid,minor,beacon\njays,v,b,\(Self.uuid),2,b\n")
        #expect(keys(result.diagnostics) == ["1:1 csv-missing-column", "1:31 csv-duplicate-column"])
        #expect(result.diagnostics.first?.message == "the header has no `major` column")
    }

    @Test func headerNamesIgnoreCaseAndSurroundingSpaces() {
        let result = importCSV("Fleet, VENUE ,beacon,UUID,Major,minor\njays,v,b,\(Self.uuid),1,2\n")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.rendered))")
        #expect(result.yaml != nil)
    }

    @Test func aRowWithTheWrongNumberOfCellsIsReportedAndTheOthersStillChecked() {
        let result = importCSV("""
            fleet,venue,beacon,uuid,major,minor
            jays,v,b1,\(Self.uuid),1,1
            jays,v,Harbour, east,\(Self.uuid),1,2
            jays,v,b3,\(Self.uuid),1
            jays,v,b4,\(Self.uuid),1,x

            """)
        #expect(result.yaml == nil)
        #expect(keys(result.diagnostics) == ["3:1 csv-cell-count", "4:1 csv-cell-count", "5:50 wrong-type"])
        #expect(result.diagnostics.first?.message == "this row has 7 cells but the header has 6")
    }

    // MARK: Importing: bad values

    @Test(arguments: [
        ("major", "abc", "wrong-type", "`major` is `abc`; it must be an integer 0…65535"),
        ("major", "1.5", "wrong-type", "`major` is `1.5`; it must be an integer 0…65535"),
        ("major", "65536", "value-out-of-range", "`major` is 65536; it must be an integer 0…65535"),
        ("minor", "-1", "value-out-of-range", "`minor` is -1; it must be an integer 0…65535"),
        ("minor", "99999999999999999999999", "value-out-of-range", "`minor` is 99999999999999999999999; it must be an integer 0…65535"),
        ("measured_power", "0", "value-out-of-range", "`measured_power` is 0; it must be `auto` or an integer −127…−1 (dBm at 1 m)"),
        ("measured_power", "-59.5", "wrong-type", "`measured_power` is `-59.5`; it must be `auto` or an integer −127…−1 (dBm at 1 m)"),
        ("interval_ms", "10", "value-out-of-range", "`interval_ms` is 10; it must be an integer 20…10240 ms"),
        ("tx_power", "21", "value-out-of-range", "`tx_power` is 21; it must be an integer -127…20 dBm"),
        ("x", "nan", "wrong-type", "`x` is `nan`; it must be a number of metres"),
        ("x", "0x1p3", "wrong-type", "`x` is `0x1p3`; it must be a number of metres"),
        ("y", "3,5", "wrong-type", "`y` is `3,5`; it must be a number of metres"),
        ("uuid", "89D6E936F61F4227BCD26E94C5A6B2E3", "invalid-uuid", "`uuid` `89D6E936F61F4227BCD26E94C5A6B2E3` is not a UUID: UUID has 32 hex digits but no hyphens; write it as 8-4-4-4-12"),
        ("uuid", "00000000-0000-0000-0000-000000000000", "nil-uuid", "`uuid` is the nil UUID, which unconfigured beacons send and apps cannot tell apart"),
        ("mac", "C4-92-D3-8E-BC-BB", "invalid-mac", "`mac` `C4-92-D3-8E-BC-BB` is not a Bluetooth address: octets are separated by '-'; write them with ':' (AA:BB:CC:DD:EE:FF)"),
    ])
    func aBadValueIsReportedAtItsCell(_ column: String, _ value: String, _ code: String, _ message: String) throws {
        var cells = ["jays", "cupertino", "b1", Self.uuid, "1", "2", "", "", "", "1", "2", ""]
        let columns = ["fleet", "venue", "beacon", "uuid", "major", "minor", "measured_power", "interval_ms", "tx_power", "x", "y", "mac"]
        let index = try #require(columns.firstIndex(of: column))
        cells[index] = value
        let csv = columns.joined(separator: ",") + "\n" + cells.map(CSVField.render).joined(separator: ",") + "\n"
        let result = importCSV(csv)
        #expect(result.yaml == nil)
        let column = cells[..<index].map { CSVField.render($0).count + 1 }.reduce(1, +)
        #expect(keys(result.diagnostics) == ["2:\(column) \(code)"])
        #expect(result.diagnostics.first?.message == message)
    }

    @Test func requiredCellsMustNotBeEmpty() {
        let result = importCSV("fleet,venue,beacon,uuid,major,minor\njays,,b1,\(Self.uuid), ,2\n")
        #expect(keys(result.diagnostics) == ["2:6 csv-missing-value", "2:47 csv-missing-value"])
        #expect(result.diagnostics.first?.message == "the `venue` cell is empty; every beacon needs one")
    }

    @Test func aPositionNeedsBothCoordinates() {
        let result = importCSV("fleet,venue,beacon,uuid,major,minor,x,y\njays,v,b1,\(Self.uuid),1,2,3.5,\n")
        #expect(keys(result.diagnostics) == ["2:52 csv-incomplete-position"])
    }

    // MARK: Importing: what the manifest loader finds, shown in the CSV

    @Test func duplicateIdentitiesAndIdsPointAtTheCSVRows() throws {
        let result = importCSV("""
            fleet,venue,beacon,uuid,major,minor
            jays,cupertino,register,\(Self.uuid),1,2
            jays,cupertino,pickup,\(Self.uuid),1,3
            jays,sunnyvale,register,\(Self.uuid),1,2

            """)
        #expect(result.yaml == nil)
        #expect(keys(result.diagnostics) == ["4:16 duplicate-id", "4:16 duplicate-identity"])
        let identity = try #require(result.diagnostics.first { $0.code == "duplicate-identity" })
        #expect(identity.notes.first?.location == FleetManifest.SourceLocation(file: "beacons.csv", line: 2, column: 16))
        #expect(identity.location.file == "beacons.csv")
    }

    @Test func warningsComeWithTheManifest() throws {
        let airLocate = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
        let result = importCSV("fleet,venue,beacon,uuid,major,minor,interval_ms\njays,v,b1,\(airLocate),1,2,50\n")
        #expect(result.yaml != nil)
        #expect(keys(result.diagnostics) == ["2:11 vendor-default-uuid", "2:52 short-interval"])
        #expect(result.diagnostics.allSatisfy { $0.severity == .warning })
    }

    @Test func severalFleetsMakeOneManifestEachOrAnErrorForASingleOne() throws {
        let other = "C8D59134-19CA-4680-88BA-8E5FCD574C9D"
        let csv = """
            fleet,venue,beacon,uuid,major,minor
            jays,cupertino,cupertino-register,\(Self.uuid),1,2
            beaumont,regent-street,regent-street-shoes,\(other),101,310
            jays,sunnyvale,sunnyvale-register,\(Self.uuid),2,2

            """
        let single = importCSV(csv)
        #expect(single.yaml == nil)
        #expect(keys(single.diagnostics) == ["3:1 csv-multiple-fleets"])
        #expect(single.diagnostics.first?.message == "rows belong to 2 fleets (`jays`, `beaumont`); a manifest holds one fleet")

        let split = FleetImport.manifests(fromCSV: csv, file: "beacons.csv")
        #expect(split.diagnostics.isEmpty)
        #expect(split.manifests.map(\.fleet) == ["jays", "beaumont"])
        let loaded = ManifestLoader.load(sources: split.manifests.map { ($0.fleet + ".yaml", Array($0.yaml.utf8)) })
        #expect(loaded.diagnostics.isEmpty)
        #expect(loaded.fleet.beacons.map(\.id) == ["cupertino-register", "sunnyvale-register", "regent-street-shoes"])
    }

    // MARK: Importing: the manifest written

    @Test func sharedValuesAreLiftedAndOnlyDifferencesWrittenPerBeacon() {
        let other = "C8D59134-19CA-4680-88BA-8E5FCD574C9D"
        let result = importCSV("""
            beacon,venue,fleet,uuid,major,minor,measured_power,interval_ms,tx_power,host,x,y,mac,name
            entrance,cupertino,jays,\(Self.uuid),1,1,auto,100,0,cupertino-pi,12,0.5,,Entrance
            register,cupertino,jays,\(Self.uuid),1,2,-61,100,-8,cupertino-pi,3.5,12,,"Register, main"
            pickup,cupertino,jays,\(Self.uuid),1,3,auto,100,-8,cupertino-pi,,,c4:92:d3:8e:bc:bb,
            guest,cupertino,jays,\(other),9,1,auto,300,-8,cupertino-pi,,,,
            kiosk,palo-alto,jays,\(Self.uuid),4,1,auto,100,-8,,,,,yes

            """)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.rendered))")
        #expect(result.yaml == """
            # Imported from a CSV export. Venue names, plans and regions are not part of
            # an export: add them here.
            version: 1
            fleet: jays
            uuid: \(Self.uuid)
            defaults:
              measured_power: auto
              interval_ms: 100
              tx_power: -8

            venues:
              - id: cupertino
                major: 1
                host: cupertino-pi
                beacons:
                  - id: entrance
                    name: Entrance
                    minor: 1
                    tx_power: 0
                    position: [12, 0.5]
                  - id: register
                    name: "Register, main"
                    minor: 2
                    measured_power: -61
                    position: [3.5, 12]
                  - id: pickup
                    minor: 3
                    mac: "C4:92:D3:8E:BC:BB"
                  - id: guest
                    uuid: \(other)
                    major: 9
                    minor: 1
                    interval_ms: 300
              - id: palo-alto
                major: 4
                beacons:
                  - id: kiosk
                    name: "yes"
                    minor: 1

            """)
    }

    @Test func emptyRadioCellsMeanTheBuiltInDefaults() throws {
        let result = importCSV("fleet,venue,beacon,uuid,major,minor,measured_power,interval_ms,tx_power\njays,v,b1,\(Self.uuid),1,2,,,\n")
        let yaml = try #require(result.yaml)
        let beacon = try #require(loadManifest(yaml).fleet.beacons.first)
        #expect(beacon.measuredPower == .auto)
        #expect(beacon.intervalMilliseconds == 100)
        #expect(beacon.txPower == 0)
        #expect(beacon.position == nil && beacon.host == nil && beacon.name == nil)
    }

    @Test(arguments: [
        "yes", "No", "null", "~", "true", "123", "-5", "3.5", "a: b", "# not a comment", "- item",
        " leading space", "trailing space ", "quote \" inside", "back\\slash",
        "[flow]", "{flow}", "&anchor", "*alias", "!tag", "%directive", "@at", "`tick`", "'single'",
        "Café Ø 東京", "line\u{2028}separator",
    ])
    func anyNameSurvivesTheTripThroughYAML(_ name: String) throws {
        let csv = "fleet,venue,beacon,uuid,major,minor,name,zone,host\n"
            + ["jays", "v", "b1", Self.uuid, "1", "2", name, name, name].map(CSVField.render).joined(separator: ",") + "\n"
        let result = importCSV(csv)
        let yaml = try #require(result.yaml, "\(result.diagnostics.map(\.rendered))")
        let loaded = loadManifest(yaml)
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics.map(\.rendered))\n\(yaml)")
        let beacon = try #require(loaded.fleet.beacons.first)
        #expect(beacon.name == name && beacon.zone == name && beacon.host == name)
    }

    @Test(arguments: ["two\nlines", "tab\there", "control \u{7}", "escape \u{1B}[31m", "nul \u{0}", "c1 \u{85}"])
    func controlCharactersAreRefusedAtTheirCell(_ name: String) throws {
        let csv = "fleet,venue,beacon,uuid,major,minor,name\n"
            + ["jays", "v", "b1", Self.uuid, "1", "2", name].map(CSVField.render).joined(separator: ",") + "\n"
        let result = importCSV(csv)
        #expect(result.yaml == nil)
        // The name cell: after `jays,v,b1,UUID,1,2,` on the second line.
        let column = ("jays,v,b1," + Self.uuid + ",1,2,").count + 1
        #expect(result.diagnostics.map { "\($0.location):\($0.code)" } == ["beacons.csv:2:\(column):control-character"], "\(result.diagnostics.map(\.rendered))")
    }

    // MARK: Round trips

    @Test(arguments: exampleFiles)
    func exampleFleetSurvivesExportImportAndLoad(_ file: String) throws {
        let original = ManifestLoader.load(paths: [Self.fleetsFolder.appendingPathComponent(file).path])
        #expect(original.diagnostics.isEmpty)
        let csv = FleetExport.csv(original.fleet.beacons)
        let imported = importCSV(csv)
        #expect(imported.diagnostics.isEmpty, "\(imported.diagnostics.map(\.rendered))")
        let yaml = try #require(imported.yaml)
        let reloaded = loadManifest(yaml)
        #expect(reloaded.diagnostics.isEmpty, "\(reloaded.diagnostics.map(\.rendered))")
        #expect(reloaded.fleet.beacons.map(BeaconValues.init) == original.fleet.beacons.map(BeaconValues.init))
        // A second trip changes nothing: the written manifest is a fixed point.
        #expect(importCSV(FleetExport.csv(reloaded.fleet.beacons)).yaml == yaml)
    }

    @Test func theWholeExampleFolderSurvivesAsOneManifestPerFleet() throws {
        let original = ManifestLoader.load(paths: [Self.fleetsFolder.path])
        let imported = FleetImport.manifests(fromCSV: FleetExport.csv(original.fleet.beacons), file: "fleets.csv")
        #expect(imported.diagnostics.isEmpty, "\(imported.diagnostics.map(\.rendered))")
        let reloaded = ManifestLoader.load(sources: imported.manifests.map { ($0.fleet + ".yaml", Array($0.yaml.utf8)) })
        #expect(reloaded.diagnostics.isEmpty)
        #expect(Set(reloaded.fleet.beacons.map(BeaconValues.init).map(\.description))
            == Set(original.fleet.beacons.map(BeaconValues.init).map(\.description)))
        #expect(reloaded.fleet.beacons.count == original.fleet.beacons.count)
    }

    @Test func columnsInAnotherOrderReadTheSame() throws {
        let original = ManifestLoader.load(paths: [Self.fleetsFolder.appendingPathComponent("museum.yaml").path])
        let records = try CSVReader.records(in: FleetExport.csv(original.fleet.beacons)).get()
        // Reverse the columns of every record.
        let reversed = records.map { record in
            CSVField.record(record.cells.reversed().map(\.text))
        }.joined()
        let imported = importCSV(reversed)
        let yaml = try #require(imported.yaml, "\(imported.diagnostics.map(\.rendered))")
        #expect(loadManifest(yaml).fleet.beacons.map(BeaconValues.init) == original.fleet.beacons.map(BeaconValues.init))
    }
}

/// The JSON Schema and the manifest reference against the loader they describe, so that
/// neither drifts when a field or an import check is added.
@Suite struct ManifestReferenceTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func schema() throws -> [String: Any] {
        let data = try Data(contentsOf: Self.root.appendingPathComponent("schema/manifest.schema.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The schema object describing each mapping of the manifest.
    private func mapping(_ kind: ManifestMappingKind, in schema: [String: Any]) throws -> [String: Any] {
        let definitions = try #require(schema["definitions"] as? [String: Any])
        let properties = try #require(schema["properties"] as? [String: Any])
        switch kind {
        case .document: return schema
        case .defaults: return try #require(properties["defaults"] as? [String: Any])
        case .venue: return try #require(definitions["venue"] as? [String: Any])
        case .plan: return try #require(definitions["plan"] as? [String: Any])
        case .beacon: return try #require(definitions["beacon"] as? [String: Any])
        case .region: return try #require(definitions["region"] as? [String: Any])
        }
    }

    @Test(arguments: ManifestMappingKind.allCases)
    func schemaAllowsExactlyTheFieldsTheLoaderReads(_ kind: ManifestMappingKind) throws {
        let object = try mapping(kind, in: try schema())
        let properties = try #require(object["properties"] as? [String: Any])
        #expect(Set(properties.keys) == Set(kind.fields.map(\.key)))
        #expect(object["additionalProperties"] as? Bool == false)
    }

    @Test func schemaRequiresWhatTheLoaderRequires() throws {
        let schema = try schema()
        let required: [ManifestMappingKind: Set<String>] = [
            .document: ["version", "fleet"], .defaults: [], .venue: ["id"], .plan: ["width", "height"],
            .beacon: ["id", "minor"], .region: ["id"],
        ]
        for kind in ManifestMappingKind.allCases {
            let object = try mapping(kind, in: schema)
            #expect(Set(object["required"] as? [String] ?? []) == required[kind], "\(kind)")
        }
    }

    @Test func everySchemaPropertyIsDescribed() throws {
        let schema = try schema()
        let definitions = try #require(schema["definitions"] as? [String: Any])
        for kind in ManifestMappingKind.allCases {
            let properties = try #require(try mapping(kind, in: schema)["properties"] as? [String: Any])
            for (name, value) in properties {
                let property = try #require(value as? [String: Any])
                // A bare reference takes its description from the definition it names.
                let reference = (property["$ref"] as? String).flatMap { $0.split(separator: "/").last.map(String.init) }
                let described = property["description"] is String
                    || (reference.flatMap { definitions[$0] as? [String: Any] }?["description"] is String)
                #expect(described, "\(kind).\(name) has no description")
            }
        }
    }

    @Test func everyImportCodeIsDocumented() throws {
        let reference = try String(contentsOf: Self.root.appendingPathComponent("docs/manifest.md"), encoding: .utf8)
        for code in ImportDiagnosticCode.allCases {
            #expect(reference.contains("| `\(code.rawValue)` |"), "\(code.rawValue) is missing from docs/manifest.md")
        }
    }
}
