import Foundation
import Testing

@testable import BeaconCLI

@Suite("beaconctl decode")
struct DecodeCommandTests {
    static let iBeaconHex = "02 01 06 1A FF 4C 00 02 15 89 D6 E9 36 F6 1F 42 27 BC D2 6E 94 C5 A6 B2 E3 00 01 00 02 C5"

    @Test func spellsOutAnIBeacon() async {
        let result = await runBeaconctl(["decode"] + Self.iBeaconHex.split(separator: " ").map(String.init))
        #expect(result.status == 0)
        #expect(result.error.isEmpty)
        #expect(result.output == """
            Advertising data, 30 bytes (offsets count from its first byte):
              byte 0: Flags (0x01), 1 byte: 06
                LE General Discoverable Mode, BR/EDR Not Supported
              byte 3: Manufacturer Specific Data (0xFF), 25 bytes: 4C 00 02 15 89 D6 E9 36 F6 1F 42 27 BC D2 6E 94 C5 A6 B2 E3 00 01 00 02 C5
                company: Apple (0x004C)
                an iBeacon (see below)
            iBeacon (the structure at byte 3):
              UUID            89D6E936-F61F-4227-BCD2-6E94C5A6B2E3
              major           1 (0x0001)
              minor           2 (0x0002)
              measured power  -59 dBm (0xC5)

            """)
    }

    @Test func aWholeEventFromAnotherImplementation() async {
        // xorbit/py-decode-beacon decode_test.py, "BlueZ message with 1 iBeacon and 1
        // AltBeacon advertisement", pasted as one argument with line breaks.
        let result = await runBeaconctl(["decode", """
            04 3E 50 02 02
            03 00 EC F8 00 EE F3 0C 1E 02 01
            04 1A FF 4C 00 02 15 8D EE FB B9 F7 38 42 97 80
            40 96 66 8B B4 42 81 13 88 0F 4E C1 BB
            03 00 EC F8 00 EE F3 0D 1C
            1B FF 44 01 BE AC 8D EE FB B9 F7 38 42 97 80
            40 96 66 8B B4 42 81 13 88 0F 4F C1 55
            B1
            """])
        #expect(result.status == 0)
        #expect(result.output == """
            HCI event: LE Meta (0x3E), 80 parameter bytes, subevent LE Advertising Report (0x02)
            2 reports
            Report 1: ADV_NONCONN_IND (0x03) from 0C:F3:EE:00:F8:EC (public), RSSI -69 dBm
              Advertising data, 30 bytes (offsets count from its first byte):
                byte 0: Flags (0x01), 1 byte: 04
                  BR/EDR Not Supported
                byte 3: Manufacturer Specific Data (0xFF), 25 bytes: 4C 00 02 15 8D EE FB B9 F7 38 42 97 80 40 96 66 8B B4 42 81 13 88 0F 4E C1
                  company: Apple (0x004C)
                  an iBeacon (see below)
              iBeacon (the structure at byte 3):
                UUID            8DEEFBB9-F738-4297-8040-96668BB44281
                major           5000 (0x1388)
                minor           3918 (0x0F4E)
                measured power  -63 dBm (0xC1)
            Report 2: ADV_NONCONN_IND (0x03) from 0D:F3:EE:00:F8:EC (public), RSSI -79 dBm
              Advertising data, 28 bytes (offsets count from its first byte):
                byte 0: Manufacturer Specific Data (0xFF), 26 bytes: 44 01 BE AC 8D EE FB B9 F7 38 42 97 80 40 96 66 8B B4 42 81 13 88 0F 4F C1 55
                  company: company 0x0144
              Not an iBeacon: the Manufacturer Specific Data at byte 0 is from company 0x0144, not Apple (0x004C).

            """)
    }

    @Test func anExtendedReportShowsItsFields() async {
        // LE Extended Advertising Report (Core v5.4 Vol 4 Part E 7.7.65.13): one report,
        // event type 0x0010 (legacy ADV_NONCONN_IND), random C4:5B:BE:12:34:56, LE 1M, no
        // secondary PHY, no SID (FF), TX power not available (7F), RSSI C4 = −60 dBm, no
        // periodic interval, no direct address, the 30-byte iBeacon.
        let result = await runBeaconctl(["decode", "--as", "event", """
            3E 38 0D 01 10 00 01 56 34 12 BE 5B C4 01 00 FF 7F C4 00 00 00 00 00 00 00 00 00 1E
            """ + " " + Self.iBeaconHex])
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.prefix(3) == [
            "HCI event: LE Meta (0x3E), 56 parameter bytes, subevent LE Extended Advertising Report (0x0D)",
            "1 report",
            "Report 1: legacy, non-connectable (0x0010) from C4:5B:BE:12:34:56 (random), RSSI -60 dBm",
        ])
        #expect(lines[3] == "  primary PHY LE 1M, secondary PHY none, SID none, TX power not available, periodic interval none, data status complete")
        #expect(result.output.contains("    UUID            89D6E936-F61F-4227-BCD2-6E94C5A6B2E3\n"))
    }

    @Test func malformedDataExitsOne() async {
        let result = await runBeaconctl(["decode", "02 01 06 1A FF 4C 00 02 15 89 D6"])
        #expect(result.status == 1)
        #expect(result.output.hasSuffix("""
            Malformed: the AD structure at byte 3 (type 0xFF) declares 26 bytes after its length byte but only 7 remain.
            Not an iBeacon: the Manufacturer Specific Data at byte 3 looks like an iBeacon but is truncated: it declares 26 bytes and only 7 remain.

            """))
    }

    @Test func malformedHexExitsTwo() async {
        let result = await runBeaconctl(["decode", "02 01 0G"])
        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        #expect(result.error == "beaconctl: error: the bytes are not hexadecimal: character 8: 'G' is not a hex digit\n")
        let nothing = await runBeaconctl(["decode"])
        #expect(nothing.status == 2)
        #expect(nothing.error.contains("Give the bytes to decode"))
    }

    @Test func jsonForPrograms() async throws {
        let result = await runBeaconctl(["decode", "--format", "json", Self.iBeaconHex])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(object["kind"] as? String == "advertising_data")
        let data = try #require(object["advertising_data"] as? [String: Any])
        #expect(data["length"] as? Int == 30)
        let beacon = try #require(data["ibeacon"] as? [String: Any])
        #expect(beacon["uuid"] as? String == "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3")
        #expect(beacon["major"] as? Int == 1)
        #expect(beacon["minor"] as? Int == 2)
        #expect(beacon["measured_power"] as? Int == -59)
        let structures = try #require(data["structures"] as? [[String: Any]])
        #expect(structures.map { $0["type_name"] as? String } == ["Flags", "Manufacturer Specific Data"])
        #expect(structures.last?["data"] as? String == "4C 00 02 15 89 D6 E9 36 F6 1F 42 27 BC D2 6E 94 C5 A6 B2 E3 00 01 00 02 C5")
        #expect(data["not_ibeacon_reason"] is NSNull)
    }

    @Test func anEventThatIsNotAReport() async {
        let result = await runBeaconctl(["decode", "04 0E 04 01 03 0C 00"])
        #expect(result.status == 0)
        #expect(result.output == """
            HCI event: Command Complete (0x0E), 4 parameter bytes
            Parameters: 01 03 0C 00
            Not an advertising report: nothing more to decode.

            """)
    }
}
