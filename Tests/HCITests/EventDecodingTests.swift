import BeaconCore
import ClockTestKit
import HCITestKit
import Testing
@testable import HCI

/// Event decoding against vectors, multi-report events, length errors, unknown events.
/// Vectors from Google Bumble 0.0.236 (`bytes(HCI_..._Event(...))`) unless noted; layouts
/// from Core v5.4 Vol 4 Part E 7.7.
@Suite struct EventDecodingTests {
    @Test func commandComplete() throws {
        let event = try HCIEvent(packet: packet("04 0e 0a 01 09 10 00 56 34 12 be 5b c4"))
        guard case .commandComplete(let complete) = event else { throw TestFailure("\(event)") }
        #expect(complete.numHCICommandPackets == 1)
        #expect(complete.opcode == .readBDADDR)
        #expect(complete.status == .success)
        #expect(complete.returnParameters == hex("00 56 34 12 be 5b c4"))
    }

    @Test func commandCompleteNOPOnlyReturnsCredits() throws {
        let event = try HCIEvent(packet: packet("04 0e 03 05 00 00"))
        #expect(event == .commandComplete(.init(numHCICommandPackets: 5, opcode: .nop, returnParameters: [])))
    }

    @Test func commandStatus() throws {
        let event = try HCIEvent(packet: packet("04 0f 04 0c 01 41 20"))
        #expect(event == .commandStatus(.init(status: .commandDisallowed, numHCICommandPackets: 1, opcode: .leSetExtendedScanParameters)))
    }

    @Test func hardwareError() throws {
        // Core v5.4 Vol 4 Part E 7.7.16: Hardware_Code, one octet.
        #expect(try HCIEvent(packet: packet("04 10 01 2a")) == .hardwareError(code: 0x2A))
    }

    @Test func disconnectionComplete() throws {
        let event = try HCIEvent(packet: packet("04 05 04 00 40 00 13"))
        #expect(event == .disconnectionComplete(.init(status: .success, connectionHandle: 0x0040, reason: .remoteUserTerminatedConnection)))
    }

    @Test func advertisingReportWithTwoReports() throws {
        let bytes = "04 3e 37 02 02 03 01 56 34 12 be 5b c4 1e" + " 02 01 06 1a ff 4c 00 02 15 e2 c5 6d b5 df fb 48 d2 b0 60 d0 f5 a7 10 96 e0 00 01 00 02 c5"
            + " bd 04 00 13 71 da 7d 1a 00 03 02 0a 08 7f"
        let event = try HCIEvent(packet: packet(bytes))
        guard case .le(.advertisingReport(let reports)) = event else { throw TestFailure("\(event)") }
        #expect(reports.count == 2)
        #expect(reports[0] == LEAdvertisingReport(
            eventType: .advNonconnInd, addressType: .random, address: try address("C4:5B:BE:12:34:56"),
            data: iBeaconData, rssi: -67))
        // Second report: a scan response from a public address, RSSI 127 = not available.
        #expect(reports[1] == LEAdvertisingReport(
            eventType: .scanResponse, addressType: .public, address: try address("00:1A:7D:DA:71:13"),
            data: hex("02 0a 08"), rssi: nil))
        #expect(try event.packet() == packet(bytes))
    }

    @Test func extendedAdvertisingReportWithTwoReports() throws {
        let bytes = "04 3e 54 0d 02"
            + " 10 00 01 56 34 12 be 5b c4 01 00 ff 7f ba 00 00 00 00 00 00 00 00 00 1e" + " 02 01 06 1a ff 4c 00 02 15 e2 c5 6d b5 df fb 48 d2 b0 60 d0 f5 a7 10 96 e0 00 01 00 02 c5"
            + " 21 00 00 13 71 da 7d 1a 00 01 02 03 f8 ce 00 00 00 00 00 00 00 00 00 04 01 02 03 04"
        let event = try HCIEvent(packet: packet(bytes))
        guard case .le(.extendedAdvertisingReport(let reports)) = event else { throw TestFailure("\(event)") }
        #expect(reports.count == 2)
        let beacon = reports[0]
        #expect(beacon.eventType == .legacyNonConnectable)
        #expect(beacon.eventType.isLegacy)
        #expect(beacon.eventType.dataStatus == .complete)
        #expect(beacon.address.description == "C4:5B:BE:12:34:56")
        #expect(beacon.addressType == .random)
        #expect(beacon.primaryPHY == .le1M)
        #expect(beacon.secondaryPHY == nil)
        #expect(beacon.sid == nil)
        #expect(beacon.txPower == nil)
        #expect(beacon.rssi == -70)
        #expect(beacon.data == iBeaconData)

        let other = reports[1]
        #expect(other.eventType.isConnectable)
        #expect(!other.eventType.isLegacy)
        #expect(other.eventType.dataStatus == .incompleteMoreToCome)
        #expect(other.secondaryPHY == .le2M)
        #expect(other.sid == 3)
        #expect(other.txPower == -8)
        #expect(other.rssi == -50)
        #expect(other.data == [1, 2, 3, 4])
        #expect(try event.packet() == packet(bytes))
    }

    @Test func extendedEventTypeBits() {
        let truncated = LEExtendedAdvertisingReport.EventType(rawValue: 0b100_0000 | 0b1_0000 | 0b10)
        #expect(truncated.isLegacy)
        #expect(truncated.isScannable)
        #expect(truncated.dataStatus == .incompleteTruncated)
        #expect(LEExtendedAdvertisingReport.EventType(rawValue: 0x60).dataStatus == .reserved)
        #expect(LEExtendedAdvertisingReport.EventType(scannable: true, legacy: true, dataStatus: .incompleteTruncated) == truncated)
        #expect(LEExtendedAdvertisingReport.EventType.legacyNonConnectable.rawValue == 0x0010)
    }

    @Test func advertisingSetTerminated() throws {
        let event = try HCIEvent(packet: packet("04 3e 06 12 43 02 00 00 05"))
        #expect(event == .le(.advertisingSetTerminated(.init(
            status: .limitReached, handle: try handle(2), connectionHandle: 0, completedExtendedAdvertisingEvents: 5))))
    }

    @Test func scanTimeout() throws {
        #expect(try HCIEvent(packet: packet("04 3e 01 11")) == .le(.scanTimeout))
    }

    @Test func unknownEventsAndSubeventsAreKept() throws {
        let vendor = try HCIEvent(packet: packet("04 ff 03 01 02 03"))
        #expect(vendor == .unknown(code: .vendorSpecific, parameters: [1, 2, 3]))
        let subevent = try HCIEvent(packet: packet("04 3e 03 14 40 00"))
        #expect(subevent == .le(.unknown(subevent: LESubeventCode(rawValue: 0x14), parameters: [0x40, 0x00])))
        #expect(try vendor.packet() == packet("04 ff 03 01 02 03"))
        #expect(try subevent.packet() == packet("04 3e 03 14 40 00"))
    }

    // MARK: Length errors

    @Test func packetLengthMustMatchTheLengthOctet() {
        #expect(throws: HCIDecodingError.lengthMismatch(structure: "Hardware Error (0x10) event packet", declared: 1, actual: 2)) {
            try HCIEvent(packet: packet("04 10 01 2a 00"))
        }
        #expect(throws: HCIDecodingError.lengthMismatch(structure: "Command Complete (0x0E) event packet", declared: 4, actual: 3)) {
            try HCIEvent(packet: packet("04 0e 04 01 03 0c"))
        }
        #expect(throws: HCIDecodingError.truncated(structure: "HCI event packet", offset: 1, needed: 1, available: 0)) {
            try HCIEvent(packet: packet("04 0e"))
        }
        #expect(throws: HCIDecodingError.wrongPacketType(expected: .event, found: .acl)) {
            try HCIEvent(packet: packet("02 00 00 00 00"))
        }
    }

    @Test func truncatedFixedEvents() {
        #expect(throws: HCIDecodingError.truncated(structure: "Command Status event", offset: 2, needed: 2, available: 1)) {
            try HCIEvent(packet: packet("04 0f 03 00 01 41"))
        }
        #expect(throws: HCIDecodingError.self) { try HCIEvent(packet: packet("04 10 00")) }
        #expect(throws: HCIDecodingError.self) { try HCIEvent(packet: packet("04 0e 02 01 03")) }
        #expect(throws: HCIDecodingError.self) { try HCIEvent(packet: packet("04 3e 05 12 43 02 00 00")) }
        #expect(throws: HCIDecodingError.self) { try HCIEvent(packet: packet("04 3e 00")) }
    }

    @Test func fixedEventsIgnoreFieldsAddedLater() throws {
        // A longer Command Status than Core v5.4 defines: the known fields are read.
        let event = try HCIEvent(packet: packet("04 0f 05 00 01 41 20 ee"))
        #expect(event == .commandStatus(.init(status: .success, numHCICommandPackets: 1, opcode: .leSetExtendedScanParameters)))
    }

    @Test func truncatedReports() {
        // Two reports announced, one present.
        #expect(throws: HCIDecodingError.truncated(structure: "LE Advertising Report event", offset: 12, needed: 1, available: 0)) {
            try HCIEvent(packet: packet("04 3e 0d 02 02 03 01 56 34 12 be 5b c4 01 ff c0"))
        }
        // Data length 5 with 2 bytes left.
        #expect(throws: HCIDecodingError.truncated(structure: "LE Advertising Report event", offset: 10, needed: 5, available: 2)) {
            try HCIEvent(packet: packet("04 3e 0d 02 01 03 01 56 34 12 be 5b c4 05 ff c0"))
        }
        // Extended report cut inside the fixed part.
        #expect(throws: HCIDecodingError.self) {
            try HCIEvent(packet: packet("04 3e 0a 0d 01 10 00 01 56 34 12 be 5b"))
        }
    }

    @Test func bytesAfterTheLastReportAreAnError() {
        // One report announced, followed by one stray byte: the count or a length is wrong.
        #expect(throws: HCIDecodingError.trailingBytes(structure: "LE Advertising Report event", offset: 12, count: 1)) {
            try HCIEvent(packet: packet("04 3e 0e 02 01 03 01 56 34 12 be 5b c4 01 ff c0 99"))
        }
        #expect(throws: HCIDecodingError.self) {
            try HCIEvent(packet: packet("04 3e 1b 0d 01 10 00 01 56 34 12 be 5b c4 01 00 ff 7f ba 00 00 00 00 00 00 00 00 00 00 aa"))
        }
    }

    @Test func hugeReportCountsDoNotAllocate() throws {
        // 255 reports announced in a 2-byte body: fails on the first report, reserves nothing huge.
        #expect(throws: HCIDecodingError.self) { try HCIEvent(packet: packet("04 3e 02 02 ff")) }
        #expect(throws: HCIDecodingError.self) { try HCIEvent(packet: packet("04 3e 02 0d ff")) }
    }

    @Test func noReports() throws {
        #expect(try HCIEvent(packet: packet("04 3e 02 02 00")) == .le(.advertisingReport([])))
    }

    @Test func everyPrefixOfAValidEventFailsCleanly() throws {
        // Hostile-input sweep: every truncation of a multi-report event throws, none traps.
        let full = hex("3e 37 02 02 03 01 56 34 12 be 5b c4 1e") + iBeaconData + hex("bd 04 00 13 71 da 7d 1a 00 03 02 0a 08 7f")
        for cut in 0..<full.count {
            var body = Array(full.prefix(cut))
            if body.count >= 2 { body[1] = UInt8(body.count - 2) }
            #expect(throws: HCIDecodingError.self) { try HCIEvent(body: body[...]) }
        }
    }

    @Test func randomBytesNeverTrap() {
        var generator = SeededGenerator(seed: 0x5EED)
        for _ in 0..<5000 {
            let length = Int.random(in: 0...40, using: &generator)
            var body = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if body.count >= 2 {
                body[0] = [0x0E, 0x0F, 0x10, 0x05, 0x3E, 0x3E, 0x3E].randomElement(using: &generator) ?? 0x3E
                body[1] = UInt8(body.count - 2)
            }
            if body.count >= 3, body[0] == 0x3E {
                body[2] = [0x02, 0x0D, 0x12, 0x11].randomElement(using: &generator) ?? 0x02
            }
            _ = try? HCIEvent(body: body[...])
        }
    }

    @Test func eventsOverTwoHundredFiftyFiveBytesCannotBeEncoded() {
        let report = LEAdvertisingReport(eventType: .advInd, addressType: .public, address: .zero,
                                         data: Array(repeating: 0, count: 31), rssi: -40)
        // 2 + 7 × 41 = 289 parameter bytes: too many; 2 + 6 × 41 = 248 fit.
        let event = HCIEvent.le(.advertisingReport(Array(repeating: report, count: 7)))
        #expect(throws: HCIParameterError.self) { try event.packet() }
        #expect((try? HCIEvent.le(.advertisingReport(Array(repeating: report, count: 6))).packet()) != nil)
    }
}

/// A deterministic generator (SplitMix64) so that the random sweep is the same every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
