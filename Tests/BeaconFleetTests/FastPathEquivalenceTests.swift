import BeaconCore
import Foundation
import HCI
import Testing

@testable import BeaconFleet

/// The fast paths of recordings (JSON lines decoded byte by byte, advertising reports read
/// in place, sightings handed over in batches) give exactly what the full paths give, on
/// valid input and on every damaged variant of it they accept.
@Suite("fast paths match the full readers")
struct FastPathEquivalenceTests {
    static let lines = [
        #"{"uuid":"89D6E936-F61F-4227-BCD2-6E94C5A6B2E3","major":1,"minor":2,"measured_power":-59,"address":"C4:5B:BE:12:34:56","address_random":false,"rssi":-63,"time":12.345678,"receiver":"hci0"}"#,
        #" { "time" : -0.5 , "uuid" : "89d6e936-f61f-4227-bcd2-6e94c5a6b2e3", "minor":65535, "major":0, "measured_power":127, "address":"c4:5b:be:12:34:56", "rssi":null, "address_random":true, "receiver":null } "#,
        #"{"uuid":"89D6E936-F61F-4227-BCD2-6E94C5A6B2E3","major":1,"minor":2,"measured_power":-128,"address":"C4:5B:BE:12:34:56","rssi":-128,"time":1700000000.123456789012,"extra":[1,{"a":2}],"receiver":"caf\u00e9"}"#,
        #"{"uuid":"89D6E936-F61F-4227-BCD2-6E94C5A6B2E3","major":1,"minor":2,"measured_power":-59,"address":"C4:5B:BE:12:34:56","time":0,"receiver":""}"#,
        #"{"uuid":"89D6E936-F61F-4227-BCD2-6E94C5A6B2E3","major":1,"minor":2,"measured_power":-59,"address":"C4:5B:BE:12:34:56","address_random":false,"rssi":-63,"time":1790000000.5,"clock":"unix","receiver":"hci0"}"#,
        #"{"clock":"elapsed","uuid":"89D6E936-F61F-4227-BCD2-6E94C5A6B2E3","major":1,"minor":2,"measured_power":-59,"address":"C4:5B:BE:12:34:56","time":2,"receiver":"r"}"#,
        // No address (a gateway's sighting): null, and left out.
        #"{"uuid":"89D6E936-F61F-4227-BCD2-6E94C5A6B2E3","major":1,"minor":2,"measured_power":-59,"address":null,"address_random":false,"rssi":-63,"time":1790000000.5,"clock":"unix","receiver":"kitchen"}"#,
        #"{"uuid":"89D6E936-F61F-4227-BCD2-6E94C5A6B2E3","major":1,"minor":2,"measured_power":-59,"rssi":-63,"time":3,"receiver":"kitchen"}"#,
    ]

    @Test("every line the fast decoder decides, the full reader reads the same; mutations included")
    func jsonLines() throws {
        var fast = SightingJSONFastDecoder()
        // A Unix default, so that a line the fast decoder gave the default clock by mistake shows.
        let defaults = SightingJSONLines.Defaults(receiver: "s", clock: .unix)
        var decided = 0
        var compared = 0
        let replacements: [UInt8] = Array("0-9\".\\e} ,{a:nE".utf8) + [0x00, 0x80, 0xC3, 0xFF]
        for line in Self.lines {
            let base = Array(line.utf8)
            var variants = [base]
            for index in base.indices {
                var removed = base
                removed.remove(at: index)
                variants.append(removed)
                for replacement in replacements where replacement != base[index] {
                    var changed = base
                    changed[index] = replacement
                    variants.append(changed)
                }
            }
            for variant in variants {
                let full = Result { () throws(SightingStreamError) in
                    try SightingJSONLines.decodeFully(variant, lineNumber: 1, source: "s", defaults: defaults)
                }
                let outcome = variant.withUnsafeBufferPointer { fast.decode($0, defaults: defaults) }
                compared += 1
                switch outcome {
                case .sighting(let sighting):
                    decided += 1
                    #expect(try full.get() == sighting, "\(String(decoding: variant, as: UTF8.self))")
                case .blank:
                    #expect(try full.get() == nil)
                case .undecided:
                    break
                }
            }
        }
        // The writer's own shape is the fast decoder's to decide.
        let written = Array(Self.lines[0].utf8)
        guard case .sighting = written.withUnsafeBufferPointer({ fast.decode($0, defaults: defaults) }) else {
            Issue.record("the writer's line went to the full reader")
            return
        }
        #expect(decided > 100 && compared > 10_000)
    }

    @Test("integers of any length are left to the full reader (a crash found by fuzzing)")
    func longIntegers() throws {
        let line = #"{ "uuid": "89d6e936-f61f-4227-bcd2-6e88c5a6b2e3", "major": 65535, "minor": 5, "measured_power": -2222222222222222222222e3 }"#
        let error = try #require(throws: SightingStreamError.self) {
            _ = try SightingJSONLines.decode(line: Array(line.utf8), lineNumber: 1, source: "s", defaultClock: .elapsed)
        }
        #expect(error.description == "s: line 1: \"measured_power\" must be an integer from -128 to 127; got -2222222222222222222222e3")
        for digits in [18, 19, 20, 40] {
            let long = Self.lines[0].replacingOccurrences(of: #""major":1,"#, with: #""major":"# + String(repeating: "9", count: digits) + ",")
            #expect(throws: SightingStreamError.self) { _ = try SightingJSONLines.decode(line: Array(long.utf8), lineNumber: 1, source: "s", defaultClock: .elapsed) }
        }
    }

    @Test("advertising report events read in place give the sightings and counts of the decoded event")
    func reportsInPlace() throws {
        let name = bytes("05 09 42 45 41 43")  // "BEAC", before the iBeacon
        let datas: [[UInt8]] = [
            testIBeaconData, name + Array(testIBeaconData.dropFirst(3)), bytes("02 01 06 03 03 AA FE"),
            testIBeaconData + [0x00, 0x00], Array(testIBeaconData.prefix(20)), [], bytes("00") + testIBeaconData,
            TelemetryExtractionTests.tlmData, TelemetryExtractionTests.kkmSensorData, TelemetryExtractionTests.kkmSystemData,
        ]
        var events: [[UInt8]] = []
        for (index, data) in datas.enumerated() {
            let reports = (0...index % 3).map { count in
                LEAdvertisingReport(
                    eventType: .advNonconnInd, addressType: LEAddressType(rawValue: UInt8(count)),
                    address: BluetoothAddress(value: 0xC45B_BE00_0000 + UInt64(count)) ?? .zero, data: data,
                    rssi: count == 1 ? nil : -60)
            }
            events.append(try HCIEvent.le(.advertisingReport(reports)).packet().body)
        }
        // Every single-byte change of each event too: lengths that lie, other codes.
        var variants = events
        for event in events {
            for index in event.indices {
                for replacement: UInt8 in [0x00, 0x01, 0x02, 0x1A, 0x3E, 0xFF, event[index] &+ 1] {
                    var changed = event
                    changed[index] = replacement
                    variants.append(changed)
                }
            }
        }
        var inPlaceCount = 0
        for body in variants {
            var fast = SightingExtractor(receiver: "r")
            var full = SightingExtractor(receiver: "r")
            var fastSightings: [Sighting] = []
            let readInPlace = body.withUnsafeBufferPointer { fast.extractLegacyReports(inEvent: $0, at: 1.5, into: &fastSightings) }
            if readInPlace {
                inPlaceCount += 1
                let event = try HCIEvent(body: body[...])
                let sightings = full.extract(from: event, at: 1.5).sightings
                #expect(fastSightings == sightings, "\(body)")
                #expect(fast.counts == full.counts, "\(body)")
                #expect(fast.telemetry.take() == full.telemetry.take(), "\(body)")
            } else {
                #expect(fastSightings.isEmpty && fast.counts == SightingExtractionCounts())
            }
        }
        #expect(inPlaceCount >= events.count)
    }

    @Test("a replay's batches hand over every sighting before the error that follows them")
    func batchesThenError() async throws {
        let path = NSTemporaryDirectory() + "beaconctl-batches-\(UUID().uuidString).jsonl"
        let good = Self.lines[0] + "\n"
        try (String(repeating: good, count: 3000) + "{\"major\":01}\n" + good).write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var iterator = SightingRecording.jsonLines(path: path).makeBatchIterator()
        var batch: [Sighting] = []
        var count = 0
        do {
            while try await iterator.nextBatch(into: &batch) { count += batch.count }
            Issue.record("no error")
        } catch let error as SightingStreamError {
            #expect(error.description == "\(path): line 3001, column 11: numbers must not have leading zeros")
        }
        #expect(count == 3000)
    }
}
