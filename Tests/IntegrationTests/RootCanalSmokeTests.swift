import Testing

/// Proves the harness end to end with hand-encoded HCI: two controllers on one RootCanal,
/// one advertising an iBeacon, the other hearing it.
@Suite("RootCanal harness", .requiresRootCanal, .timeLimit(.minutes(1)))
struct RootCanalSmokeTests {
    @Test("HCI Reset on two controllers answers Command Complete, success")
    func resetOnTwoControllers() async throws {
        try await withRootCanal { rootCanal in
            let first = try await H4TestLink(port: rootCanal.hciPort)
            let second = try await H4TestLink(port: rootCanal.hciPort)
            for link in [first, second] {
                try link.send(raw: HandEncoded.reset)
                // A safety deadline: RootCanal answers at once.
                let answer = try await link.nextEvent(within: .seconds(45))
                // Command Complete: 1 command slot, opcode 0x0C03, status success.
                #expect(answer.h4Bytes == [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
            }
        }
    }

    @Test("a controller scanning passively receives another's iBeacon data byte for byte")
    func scannerHearsLegacyIBeacon() async throws {
        try await withRootCanal { rootCanal in
            let advertiser = try await H4TestLink(port: rootCanal.hciPort)
            let scanner = try await H4TestLink(port: rootCanal.hciPort)

            for link in [advertiser, scanner] {
                try await link.command("Reset", opcode: 0x0C03)
                // RootCanal leaves LE Meta masked after Reset: unmask it and the report subevent.
                try await link.command("Set Event Mask", opcode: 0x0C01, parameters: HandEncoded.eventMask)
                try await link.command("LE Set Event Mask", opcode: 0x2001, parameters: HandEncoded.leEventMask)
            }

            try await advertiser.command(
                "LE Set Advertising Parameters", opcode: 0x2006, parameters: HandEncoded.nonConnectable100ms)
            try await advertiser.command(
                "LE Set Advertising Data", opcode: 0x2008, parameters: HandEncoded.advertisingData(HandEncoded.iBeacon))
            try await advertiser.command("LE Set Advertising Enable", opcode: 0x200A, parameters: [0x01])

            try await scanner.command(
                "LE Set Scan Parameters", opcode: 0x200B, parameters: HandEncoded.passiveContinuousScan)
            // LE Set Scan Enable (Vol 4 Part E 7.8.11): enable, duplicate filtering off.
            try await scanner.command("LE Set Scan Enable", opcode: 0x200C, parameters: [0x01, 0x00])

            // A safety deadline: the beacon is heard within its first 100 ms interval or two.
            let deadline = ContinuousClock.now + .seconds(60)
            var heard: LEAdvertisingReport?
            var otherEvents: [H4TestLink.Event] = []
            while heard == nil, ContinuousClock.now < deadline {
                let event = try await scanner.nextEvent(within: deadline - ContinuousClock.now)
                if let reports = LEAdvertisingReport.reports(in: event) {
                    heard = reports.first { $0.data == HandEncoded.iBeacon }
                } else {
                    otherEvents.append(event)
                }
            }
            let report = try #require(
                heard, "no LE Advertising Report with the iBeacon data within 60 s; other events: \(otherEvents)")
            #expect(report.eventType == 0x03, "expected ADV_NONCONN_IND, got event type 0x\(report.eventType.hex)")
            #expect(report.data.count == 30)
        }
    }
}

/// The few commands these tests send, encoded by hand from the Core specification (v5.4,
/// Vol 4 Part E) so that the harness is proven without the project's HCI module.
/// Multi-byte HCI fields are little-endian; iBeacon fields big-endian.
enum HandEncoded {
    /// H4 command packet: indicator 0x01, opcode 0x0C03 (Reset, 7.3.2), no parameters.
    static let reset: [UInt8] = [0x01, 0x03, 0x0C, 0x00]

    /// Set Event Mask (7.3.1): the default mask 0x00001FFFFFFFFFFF plus bit 61, LE Meta event.
    static let eventMask: [UInt8] = littleEndian(0x2000_1FFF_FFFF_FFFF)

    /// LE Set Event Mask (7.8.1): bit 1, LE Advertising Report (subevent 0x02), alone.
    static let leEventMask: [UInt8] = littleEndian(0x0000_0000_0000_0002)

    /// LE Set Advertising Parameters (7.8.5), 15 bytes.
    static let nonConnectable100ms: [UInt8] = [
        0xA0, 0x00,  // Advertising_Interval_Min: 0x00A0 × 0.625 ms = 100 ms, the iBeacon convention
        0xA0, 0x00,  // Advertising_Interval_Max: the same
        0x03,  // Advertising_Type: ADV_NONCONN_IND
        0x00,  // Own_Address_Type: public
        0x00,  // Peer_Address_Type: unused for undirected advertising
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // Peer_Address: unused
        0x07,  // Advertising_Channel_Map: 37, 38 and 39
        0x00,  // Advertising_Filter_Policy: anyone may scan or connect
    ]

    /// LE Set Scan Parameters (7.8.10), 7 bytes: passive, window = interval = 10 ms, so
    /// the scanner listens all the time.
    static let passiveContinuousScan: [UInt8] = [
        0x00,  // LE_Scan_Type: passive (no scan requests)
        0x10, 0x00,  // LE_Scan_Interval: 0x0010 × 0.625 ms = 10 ms
        0x10, 0x00,  // LE_Scan_Window: the same
        0x00,  // Own_Address_Type: public
        0x00,  // Scanning_Filter_Policy: accept all advertisements
    ]

    /// 30 bytes of legacy advertising data: an iBeacon for UUID
    /// 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3, major 1, minor 2, measured power −59 dBm.
    static let iBeacon: [UInt8] = [
        // AD structure (Core v5.4 Vol 3 Part C 11): length 2, Flags (CSS Part A 1.3):
        // LE General Discoverable, BR/EDR not supported.
        0x02, 0x01, 0x06,
        // Length 26, Manufacturer Specific Data (CSS Part A 1.4), company 0x004C (LE16),
        // then Apple's iBeacon type 0x02 and its remaining length 0x15 (21 bytes).
        0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15,
        // Proximity UUID, big-endian.
        0x89, 0xD6, 0xE9, 0x36, 0xF6, 0x1F, 0x42, 0x27, 0xBC, 0xD2, 0x6E, 0x94, 0xC5, 0xA6, 0xB2, 0xE3,
        0x00, 0x01,  // major, big-endian
        0x00, 0x02,  // minor, big-endian
        0xC5,  // measured power: −59 dBm as int8
    ]

    /// LE Set Advertising Data (7.8.7): length, then always 31 data bytes, zero padded.
    static func advertisingData(_ data: [UInt8]) -> [UInt8] {
        [UInt8(data.count)] + data + [UInt8](repeating: 0, count: max(0, 31 - data.count))
    }

    private static func littleEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}
