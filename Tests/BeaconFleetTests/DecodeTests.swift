import BeaconCore
import Foundation
import HCI
import Testing

@testable import BeaconFleet

@Suite("Decoding advertising data and events")
struct DecodeTests {
    // MARK: Hex

    @Test(arguments: [
        "02 01 06", "02:01:06", "0x02 0x01 0x06", "020106", "0x020106", "02,01,06", " 02\t01\n06 ", "0X02 01:06",
    ])
    func hexAsPeoplePasteIt(text: String) throws {
        #expect(try DecodeHex.bytes(from: text) == [0x02, 0x01, 0x06])
    }

    @Test(arguments: [
        ("02 1 06", "character 4: '1' has an odd number of hex digits; write each byte as two digits (e.g. 0A)"),
        ("02 0G", "character 5: 'G' is not a hex digit"),
        ("0x", "character 1: '0x' is not followed by hex digits"),
        ("02 é1", "character 4: 'é' is not a hex digit"),
    ])
    func hexMistakesArePlaced(text: String, message: String) {
        let error = #expect(throws: DecodeHex.Failure.self) { try DecodeHex.bytes(from: text) }
        #expect(error?.description == message)
    }

    // MARK: iBeacons from other implementations (byte order: UUID, major and minor big-endian)

    @Test func forforfMultiBeaconExample() throws {
        // forforf/multi_beacon ibeacon_protocol.md: major 16 and minor 32 sent as 00 10 00 20
        // (its prose calls them LSB first; the bytes are big-endian), measured power −58 (C6),
        // flags 0x1A.
        let data = DecodedAdvertisingData(try DecodeHex.bytes(from:
            "02 01 1A 1A FF 4C 00 02 15 83 25 6B 74 78 D0 43 A4 82 69 05 F9 DC 8A 44 BA 00 10 00 20 C6"))
        let beacon = try #require(data.iBeacon)
        #expect(beacon.advertisement.identity.description == "83256B74-78D0-43A4-8269-05F9DC8A44BA/16/32")
        #expect(beacon.advertisement.measuredPower == -58)
        #expect(data.structures.first?.details == [
            "LE General Discoverable Mode, Simultaneous LE and BR/EDR (Controller), Simultaneous LE and BR/EDR (Host)",
        ])
    }

    @Test func airLocateHcitoolRecipe() throws {
        // hecko/librebeacon.github.io ibeacon_packet.md: the hcitool payload after its length
        // byte 1E: Apple's AirLocate UUID, major 0, minor 0, measured power C5 (−59 dBm).
        let data = DecodedAdvertisingData(try DecodeHex.bytes(from:
            "02 01 1a 1a ff 4c 00 02 15 e2 c5 6d b5 df fb 48 d2 b0 60 d0 f5 a7 10 96 e0 00 00 00 00 c5"))
        #expect(data.iBeacon?.advertisement.identity.description == "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0/0/0")
        #expect(data.iBeacon?.advertisement.measuredPower == -59)
    }

    @Test func xorbitEventsWithSeveralReports() throws {
        // xorbit/py-decode-beacon decode_test.py, "BlueZ message with 2 iBeacon
        // advertisements, the second without flags": address EC F8 00 EE F3 0C on the wire is
        // 0C:F3:EE:00:F8:EC; major 0x1388 = 5000; RSSI BB = −69 dBm.
        let event = try DecodeHex.bytes(from: """
            04 3E 4F 02 02
            03 00 EC F8 00 EE F3 0C 1E 02 01 04 1A FF 4C 00 02 15 8D EE FB B9 F7 38 42 97 80 40 96 66 8B B4 42 81 13 88 0F 4E C1 BB
            03 00 EC F8 00 EE F3 0D 1B 1A FF 4C 00 02 15 8D EE FB B9 F7 38 42 97 80 40 96 66 8B B4 42 81 13 88 0F 4F C1 B0
            """)
        guard case .event(let decoded) = DecodedInput(bytes: event) else {
            Issue.record("an H4 LE Meta event was not recognised")
            return
        }
        #expect(decoded.problem == nil)
        #expect(decoded.reports.map(\.address) == ["0C:F3:EE:00:F8:EC", "0D:F3:EE:00:F8:EC"])
        #expect(decoded.reports.map(\.rssi) == [-69, -80])
        #expect(decoded.reports.map { $0.data.iBeacon?.advertisement.identity.minor } == [3918, 3919])
        #expect(decoded.reports[1].data.iBeacon?.offset == 0)
    }

    // MARK: Why not an iBeacon

    @Test(arguments: [
        ("", "the advertising data is empty"),
        ("02 01 06 03 03 AA FE", "there is no Manufacturer Specific Data (0xFF) structure, which an iBeacon is"),
        ("02 01 06 05 FF 06 00 01 09",
         "the Manufacturer Specific Data at byte 3 is from Microsoft (0x0006), not Apple (0x004C)"),
        // xorbit/py-decode-beacon: an AltBeacon (beacon code BE AC) from company 0x0144.
        ("1B FF 44 01 BE AC 8D EE FB B9 F7 38 42 97 80 40 96 66 8B B4 42 81 13 88 0F 4F C1 55",
         "the Manufacturer Specific Data at byte 0 is from company 0x0144, not Apple (0x004C)"),
        ("02 01 06 0A FF 4C 00 10 05 01 18 44 AA BB",
         "the Manufacturer Specific Data at byte 3 is Apple's type 0x10, not the iBeacon type 0x02"),
        ("1A FF 4C 00 02 14 89 D6 E9 36 F6 1F 42 27 BC D2 6E 94 C5 A6 B2 E3 00 01 00 02 C5",
         "the Manufacturer Specific Data at byte 0 has the iBeacon type but its length byte (at byte 5) is 0x14; an iBeacon has 0x15 (21 bytes)"),
        ("19 FF 4C 00 02 15 89 D6 E9 36 F6 1F 42 27 BC D2 6E 94 C5 A6 B2 E3 00 01 00 02",
         "the Manufacturer Specific Data at byte 0 is an iBeacon truncated to 20 of its 21 bytes (UUID 16, major 2, minor 2, measured power 1)"),
        ("1B FF 4C 00 02 15 89 D6 E9 36 F6 1F 42 27 BC D2 6E 94 C5 A6 B2 E3 00 01 00 02 C5 00",
         "the Manufacturer Specific Data at byte 0 carries 1 byte after the 21 of an iBeacon; its AD length byte is 0x1B, an iBeacon's is 0x1A"),
        ("02 01 06 1A FF 4C 00 02 15 89 D6 E9 36",
         "the Manufacturer Specific Data at byte 3 looks like an iBeacon but is truncated: it declares 26 bytes and only 9 remain"),
        ("02 01 06 1A", "the data is truncated at byte 3, before any Manufacturer Specific Data"),
    ])
    func saysWhyNot(hex: String, reason: String) throws {
        let data = DecodedAdvertisingData(try DecodeHex.bytes(from: hex))
        #expect(data.iBeacon == nil)
        #expect(data.notIBeaconReason == reason)
    }

    @Test("an Eddystone-TLM frame in service data is read out: battery, temperature, count, uptime")
    func eddystoneTelemetry() throws {
        let data = DecodedAdvertisingData(try DecodeHex.bytes(from: "02 01 06 03 03 AA FE 11 16 AA FE 20 00 0B B8 16 80 00 00 30 39 00 00 27 16"))
        let serviceData = try #require(data.structures.first { $0.type == 0x16 })
        #expect(serviceData.details.last == "Eddystone-TLM: battery 3000 mV, 22.5 °C, 12345 advertisements, up 16 min 40.6 s")
        let encrypted = DecodedAdvertisingData(try DecodeHex.bytes(from: "15 16 AA FE 20 01" + String(repeating: " 00", count: 16)))
        #expect(encrypted.structures.first?.details.last == "Eddystone-TLM, encrypted: readable only with the beacon's identity key")
    }

    @Test("KKM's frames are read out: a sensor frame as manufacturer data, a system frame as Eddystone service data, a cut one")
    func kkmTelemetry() throws {
        let sensor = DecodedAdvertisingData(try DecodeHex.bytes(from: "02 01 06 0A FF 53 0A 21 00 03 0C 1C FD C0"))
        #expect(sensor.structures.first { $0.type == 0xFF }?.details.last == "KKM sensor frame: battery 3100 mV, -2.25 °C")
        let system = DecodedAdvertisingData(try DecodeHex.bytes(from: "0E 16 AA FE 22 07 54 DD 33 0A 10 20 30 05 0C"))
        #expect(system.structures.first?.details.last == "KKM system frame: battery 84 %, model 7, firmware 5.12")
        let cut = DecodedAdvertisingData(try DecodeHex.bytes(from: "07 FF 53 0A 21 00 01 0B"))
        #expect(cut.structures.first?.details.last == "KKM frame, unreadable: a KKM sensor frame of 4 bytes that ends before its battery voltage (byte 3)")
    }

    @Test func anIBeaconFollowedByAMalformedStructureIsNotOne() throws {
        // Found by Fuzz/ADParserFuzz: a whole iBeacon, then a length byte C5 with nothing
        // after it. The finder (like any scanner) refuses the report; the decoder must agree
        // and say what it saw.
        let bytes = Array(try #require(Data(base64Encoded: "AgEGGv9MAAIVidbpNvYfQie80m49lMWm//8AAQACxQ==")))
        #expect(IBeaconAdvertisement(advertisingData: bytes) == nil)
        let data = DecodedAdvertisingData(bytes)
        #expect(data.iBeacon == nil)
        #expect(data.notIBeaconReason == "the structure at byte 3 holds an iBeacon (89D6E936-F61F-4227-BCD2-6E3D94C5A6FF/65280/256, measured power 2 dBm), but the structure at byte 30 is malformed, so scanners discard the whole report")
        #expect(data.problem == "the AD structure at byte 30 declares 197 bytes after its length byte but only 0 remain")
    }

    @Test func malformedDataNamesTheOffset() throws {
        let data = DecodedAdvertisingData(try DecodeHex.bytes(from: "02 01 06 1A FF 4C 00"))
        #expect(data.problem == "the AD structure at byte 3 (type 0xFF) declares 26 bytes after its length byte but only 3 remain")
        #expect(data.structures.count == 1)
        #expect(DecodedInput(bytes: [0x02, 0x01, 0x06, 0x1A, 0xFF]).isMalformed)
    }

    @Test func paddingAfterTheSignificantPart() throws {
        let data = DecodedAdvertisingData(testIBeaconData + [0x00])
        #expect(data.iBeacon != nil)
        #expect(data.terminatorOffset == 30)
        #expect(data.nonZeroBytesAfterTerminator == 0)
        #expect(!DecodedInput(bytes: testIBeaconData + [0x00]).isMalformed)
    }

    // MARK: Structure details

    @Test(arguments: [
        ("02 0A F4", ["-12 dBm"]),
        ("05 09 41 42 0A 43", ["\"AB\\nC\""]),
        ("03 09 C3 28", ["not valid UTF-8: C3 28"]),
        ("05 03 0F 18 AA FE", ["0x180F (Battery)", "0xFEAA (Eddystone (Google))"]),
        ("04 03 0F 18 AA", ["malformed: 3 bytes of data where a multiple of 2 bytes belong"]),
        ("11 07 E3 B2 A6 C5 94 6E D2 BC 27 42 1F F6 36 E9 D6 89", ["89D6E936-F61F-4227-BCD2-6E94C5A6B2E3"]),
        ("03 19 41 03", ["appearance 0x0341"]),
        ("03 1A A0 00", ["100 ms"]),
        ("03 1A F4 00", ["152.5 ms"]),
        ("05 16 AA FE 10 00", ["service 0xFEAA (Eddystone (Google))", "data: 10 00"]),
        ("02 01 E0", ["reserved bit 5, reserved bit 6, reserved bit 7"]),
        ("02 01 00", ["no flags set"]),
        ("03 42 01 02", []),
    ])
    func structureDetails(hex: String, details: [String]) throws {
        let data = DecodedAdvertisingData(try DecodeHex.bytes(from: hex))
        #expect(data.structures.first?.details == details)
    }

    @Test func unknownTypesAreNamedByNumber() throws {
        let structure = try #require(DecodedAdvertisingData([0x03, 0x42, 0x01, 0x02]).structures.first)
        #expect(structure.typeDescription == "unknown type 0x42")
    }

    // MARK: Events

    @Test func whatCountsAsAnEvent() {
        #expect(DecodedInput.looksLikeEvent(bytes("04 3E 03 02 00 00")))
        #expect(DecodedInput.looksLikeEvent(bytes("04 0E 04 01 03 0C 00")))
        #expect(DecodedInput.looksLikeEvent(bytes("3E 02 02 00")))
        #expect(DecodedInput.looksLikeEvent(bytes("3E 02 0D 00")))
        #expect(!DecodedInput.looksLikeEvent(testIBeaconData))
        #expect(!DecodedInput.looksLikeEvent(bytes("04 09 41 42 43")))
        #expect(DecodedInput.withoutIndicator(bytes("04 0E 04 01 03 0C 00")) == bytes("0E 04 01 03 0C 00"))
        #expect(DecodedInput.withoutIndicator(bytes("3E 02 02 00")) == bytes("3E 02 02 00"))
    }

    @Test func malformedEventsAreReportedWithTheirOffset() {
        guard case .event(let event) = DecodedInput(bytes: bytes("3E 05 02 03 03 00 01")) else {
            Issue.record("not read as an event")
            return
        }
        #expect(event.problem == "LE Advertising Report event: cut short at byte 3: 6 more bytes needed, 1 left")
        #expect(event.subeventName == "LE Advertising Report (0x02)")
        #expect(DecodedInput(bytes: bytes("3E 05 02 03 03 00 01")).isMalformed)
        guard case .event(let lying) = DecodedInput(bytes: bytes("04 3E 09 02 01")) else {
            Issue.record("not read as an event")
            return
        }
        #expect(lying.problem == "LE Meta (0x3E) event packet: length field says 9 bytes but 2 are present")
    }

    @Test func extendedFragmentsAreMarkedIncomplete() throws {
        let report = LEExtendedAdvertisingReport(
            eventType: .init(dataStatus: .incompleteMoreToCome), addressType: .random,
            address: try bluetoothAddress("D0:00:00:00:00:01"), rssi: -61, data: Array(testIBeaconData[..<12]))
        let body = try HCIEvent.le(.extendedAdvertisingReport([report])).packet().body
        guard case .event(let event) = DecodedInput(bytes: body) else {
            Issue.record("not read as an event")
            return
        }
        let decoded = try #require(event.reports.first)
        #expect(decoded.dataIsIncomplete)
        #expect(decoded.eventType == "non-connectable, more data to come")
        #expect(decoded.extendedFields.last == DecodedField("data status", "incomplete, more to come"))
        #expect(decoded.data.problem != nil)
        // A fragment that ends mid-structure is expected, not malformed.
        #expect(!DecodedInput(bytes: body).isMalformed)
    }

    @Test func zeroLengthDataAndZeroReports() throws {
        guard case .event(let event) = DecodedInput(bytes: bytes("3E 02 02 00")) else {
            Issue.record("not read as an event")
            return
        }
        #expect(event.problem == nil)
        #expect(event.reports.isEmpty)
        let empty = try HCIEvent.le(.advertisingReport([
            LEAdvertisingReport(eventType: .advInd, addressType: .public, address: .zero, data: [], rssi: -40),
        ])).packet().body
        guard case .event(let withEmptyData) = DecodedInput(bytes: empty) else {
            Issue.record("not read as an event")
            return
        }
        #expect(withEmptyData.reports.first?.data.notIBeaconReason == "the advertising data is empty")
    }
}

