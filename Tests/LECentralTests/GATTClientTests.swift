import ClockTestKit
import HCI
import HCITestKit
import Testing
@testable import LECentral

/// The ATT client and GATT procedures against `AttributeTable`: discovery across responses
/// of different entry lengths, MTU exchange, long reads and writes, notifications and
/// confirmed indications, errors in words, one request at a time and the 30 s timeout.
@Suite struct GATTClientTests {
    static let configurationUUID = AttributeUUID("a3c87500-8ed3-4bdf-8a39-a01bebede295") ?? AttributeUUID(0)
    static let slotUUID = AttributeUUID("a3c87501-8ed3-4bdf-8a39-a01bebede295") ?? AttributeUUID(0)
    static let longValue = (0..<100).map { UInt8($0) }

    static func table(serverMTU: UInt16 = 247) -> AttributeTable {
        typealias A = AttributeTable.Attribute
        return AttributeTable([
            A(handle: 1, type: .primaryService, value: [0x0F, 0x18]),
            A(handle: 2, type: .characteristic, value: [0x12, 0x03, 0x00, 0x19, 0x2A]),
            A(handle: 3, type: AttributeUUID(0x2A19), value: [0x64], writable: false),
            A(handle: 4, type: .clientCharacteristicConfiguration, value: [0, 0]),
            A(handle: 5, type: .primaryService, value: configurationUUID.littleEndian),
            A(handle: 6, type: .characteristic, value: [0x2A, 0x07, 0x00] + slotUUID.littleEndian),
            A(handle: 7, type: slotUUID, value: longValue),
            A(handle: 8, type: .clientCharacteristicConfiguration, value: [0, 0]),
            A(handle: 9, type: .characteristic, value: [0x0A, 0x0A, 0x00, 0x00, 0x2A]),
            A(handle: 10, type: AttributeUUID(0x2A00), value: Array("beacon".utf8)),
        ], serverMTU: serverMTU)
    }

    @Test func discoversServicesCharacteristicsAndDescriptors() async throws {
        let bearer = TableBearer(table: Self.table())
        let gatt = GATTClient(att: ATTClient(bearer: bearer))
        let services = try await gatt.discoverPrimaryServices()
        #expect(services == [
            GATTService(uuid: AttributeUUID(0x180F), handle: 1, endHandle: 4),
            GATTService(uuid: Self.configurationUUID, handle: 5, endHandle: 10),
        ])
        let battery = try await gatt.discoverCharacteristics(of: services[0])
        #expect(battery == [GATTCharacteristic(uuid: AttributeUUID(0x2A19), declarationHandle: 2, valueHandle: 3, endHandle: 4, properties: [.read, .notify])])
        // Two lengths of declaration in one service: two Read By Type responses.
        let configuration = try await gatt.discoverCharacteristics(of: services[1])
        #expect(configuration.map(\.uuid) == [Self.slotUUID, AttributeUUID(0x2A00)])
        #expect(configuration.map(\.endHandle) == [8, 10])
        #expect(configuration[0].properties == [.read, .write, .indicate])
        #expect(try await gatt.discoverDescriptors(of: configuration[0]) == [GATTDescriptor(uuid: .clientCharacteristicConfiguration, handle: 8)])
        #expect(try await gatt.discoverDescriptors(of: configuration[1]).isEmpty)
    }

    @Test(arguments: [(UInt16(23), 23), (UInt16(185), 185), (UInt16(517), 247)])
    func theSmallerMTUWins(server: UInt16, agreed: Int) async throws {
        let att = ATTClient(bearer: TableBearer(table: Self.table(serverMTU: server)))
        #expect(await att.mtu == 23)
        #expect(try await att.exchangeMTU() == agreed)
        #expect(await att.mtu == agreed)
    }

    @Test func longReadsAndWritesAtTheDefaultMTU() async throws {
        let table = Self.table()
        let bearer = TableBearer(table: table)
        let gatt = GATTClient(att: ATTClient(bearer: bearer))
        #expect(try await gatt.read(7) == Self.longValue)
        // 22 + 22 + 22 + 22 + 12: one Read and four Read Blobs.
        #expect(bearer.sent.elements.filter { $0.first == ATTOpcode.readBlobRequest }.count == 4)
        #expect(try await gatt.read(10) == Array("beacon".utf8))

        let written = (0..<60).map { UInt8(255 - $0) }
        try await gatt.write(7, written)
        #expect(table.value(at: 7) == written)
        #expect(bearer.sent.elements.filter { $0.first == ATTOpcode.prepareWriteRequest }.count == 4)
        try await gatt.write(10, Array("b2".utf8))
        #expect(table.value(at: 10) == Array("b2".utf8))
    }

    @Test func aLongWriteWhoseEchoDiffersIsCancelled() async throws {
        let table = Self.table()
        table.corruptEchoes()
        let bearer = TableBearer(table: table)
        let gatt = GATTClient(att: ATTClient(bearer: bearer))
        await #expect(throws: LECentralError.self) { try await gatt.write(7, Array(repeating: 1, count: 40)) }
        #expect(bearer.sent.elements.last == ATTPDU.executeWriteRequest(write: false).bytes)
        #expect(table.value(at: 7) == Self.longValue)
    }

    @Test func errorResponsesAreWorded() async throws {
        let gatt = GATTClient(att: ATTClient(bearer: TableBearer(table: Self.table())))
        do {
            try await gatt.write(3, [1])
            Issue.record("the write to a read-only value was accepted")
        } catch {
            #expect(error.kind == .attribute(request: ATTOpcode.writeRequest, handle: 3, error: .writeNotPermitted))
            #expect(error.description == "memory: peripheral 00:00:00:00:00:01: Write Request for handle 0x0003 was refused: 0x03 Write Not Permitted: the beacon does not let this value be written")
        }
        await #expect(throws: LECentralError.self) { try await gatt.read(0x0042) }
        await #expect(throws: LECentralError.self) { try await gatt.write(10, Array(repeating: 0, count: 513)) }
    }

    @Test func notificationsArriveAndIndicationsAreConfirmed() async throws {
        let table = Self.table()
        let bearer = TableBearer(table: table)
        let att = ATTClient(bearer: bearer)
        let gatt = GATTClient(att: att)
        let values = await att.handleValues()
        let services = try await gatt.discoverPrimaryServices()
        let battery = try await gatt.discoverCharacteristics(of: services[0])[0]
        try await gatt.subscribe(to: battery, .notifications)
        #expect(table.value(at: 4) == [0x01, 0x00])
        let slot = try await gatt.discoverCharacteristics(of: services[1])[0]
        try await gatt.subscribe(to: slot, .indications)
        #expect(table.value(at: 8) == [0x02, 0x00])
        await #expect(throws: LECentralError.self) { try await gatt.subscribe(to: battery, .indications) }

        bearer.push(.handleValueNotification(handle: 3, value: [0x63]))
        bearer.push(.handleValueIndication(handle: 7, value: [0x01]))
        var iterator = values.makeAsyncIterator()
        #expect(await iterator.next() == ATTHandleValue(handle: 3, value: [0x63], isIndication: false))
        #expect(await iterator.next() == ATTHandleValue(handle: 7, value: [0x01], isIndication: true))
        try await bearer.sent.wait(for: "the confirmation") { $0.last == [ATTOpcode.handleValueConfirmation] }
    }

    @Test func oneRequestAtATimeAndTheTransactionTimeoutEndsTheBearer() async throws {
        let table = Self.table()
        table.goSilent()
        let bearer = TableBearer(table: table)
        let clock = TestClock()
        let att = ATTClient(bearer: bearer, clock: clock)
        let first = Task { try await att.request(.readRequest(handle: 3)) }
        try await clock.sleepers(atLeast: 1)
        let second = Task { try await att.request(.readRequest(handle: 10)) }
        // The second waits for the first's answer: nothing more was sent.
        try await bearer.sent.wait(for: "the first request") { $0.count == 1 }
        clock.advance(by: .seconds(29))
        #expect(bearer.sent.elements.count == 1)
        clock.advance(by: .seconds(1))
        do {
            _ = try await first.value
            Issue.record("the unanswered request returned")
        } catch let error as LECentralError {
            #expect(error.kind == .transactionTimeout(.seconds(30)))
        }
        // 3.3.3: after a timeout no further request goes out on the bearer.
        do {
            _ = try await second.value
            Issue.record("a request went out after the timeout")
        } catch let error as LECentralError {
            #expect(error.kind == .transactionTimeout(.seconds(30)))
        }
        #expect(bearer.sent.elements.count == 1)
    }

    @Test func aDroppedLinkFailsThePendingRequestWithItsReason() async throws {
        let table = Self.table()
        table.goSilent()
        let bearer = TableBearer(table: table)
        let att = ATTClient(bearer: bearer)
        let pending = Task { try await att.request(.readRequest(handle: 3)) }
        try await bearer.sent.wait(for: "the request") { $0.count == 1 }
        bearer.drop(reason: .connectionTimeout)
        do {
            _ = try await pending.value
            Issue.record("the request outlived its link")
        } catch let error as LECentralError {
            #expect(error.kind == .disconnected(reason: .connectionTimeout))
            #expect(error.description.contains("the link was lost (supervision timeout)"))
        }
    }

    @Test func aRequestFromTheServerIsAnsweredAsByAClientWithoutAttributes() async throws {
        let bearer = TableBearer(table: Self.table())
        let att = ATTClient(bearer: bearer)
        bearer.push(.readByGroupTypeRequest(start: 1, end: 0xFFFF, type: .primaryService))
        try await bearer.sent.wait(for: "the error response") {
            $0.last == ATTPDU.errorResponse(request: ATTOpcode.readByGroupTypeRequest, handle: 0, error: .attributeNotFound).bytes
        }
        bearer.push(.exchangeMTURequest(clientMTU: 100))
        try await bearer.sent.wait(for: "the MTU response") { $0.last == ATTPDU.exchangeMTUResponse(serverMTU: 247).bytes }
        #expect(await att.mtu == 100)
    }
}
