import BeaconCore
import CryptoPrimitives
import HCI
import LECentral
import Testing
import VirtualRadio

@testable import VirtualBeacons

/// A central's end of one link to a ``VirtualKBeacon``, with KKM's protocol steps.
typealias BeaconLink = CentralLink<VirtualKBeacon>

extension CentralLink where Peripheral == VirtualKBeacon {
    init(_ configuration: VirtualKBeacon.Configuration = .init(address: BluetoothAddress(value: 0x06_BE_AC_BA_00_01) ?? .zero)) {
        self.init(VirtualKBeacon(configuration), central: BluetoothAddress(value: 0x06_BE_AC_00_00_01) ?? .zero)
    }

    /// Subscribes to 0xFEA2 and returns the handle of 0xFEA1 (after Exchange MTU at `mtu`).
    mutating func open(mtu: UInt16 = 247) throws -> UInt16 {
        _ = try send(.exchangeMTURequest(clientMTU: mtu))
        #expect(try send(.writeRequest(handle: 0x0009, value: [0x01, 0x00])) == [.writeResponse])
        return 0x0006
    }

    /// Writes `value` to 0xFEA1 and returns the notifications of 0xFEA2 that followed.
    mutating func write(_ value: [UInt8], withResponse: Bool = true) throws -> [[UInt8]] {
        let answers = try send(withResponse ? .writeRequest(handle: 0x0006, value: value) : .writeCommand(handle: 0x0006, value: value))
        if withResponse { #expect(answers.first == .writeResponse) }
        return answers.compactMap { if case .handleValueNotification(0x0008, let value) = $0 { value } else { nil } }
    }

    /// KKM's challenge-response with `password`; returns the beacon's last notification.
    mutating func authenticate(password: String, random: [UInt8] = [1, 2, 3, 4]) throws -> [UInt8] {
        let challenge = try #require(try write([0x13, 0x01] + random).first)
        let address = beacon.configuration.address.littleEndianBytes
        let folded = challenge[1] == 0x0B
        let beaconRandom = Array(challenge[2..<6])
        var proof = try #require(Cryptography.md5(address + [0xA9, 0xB1] + beaconRandom + Array(password.utf8)))
        if folded { proof = KBeaconFirmware.fold(proof) }
        return try #require(try write([0x13, folded ? 0x0C : 0x02] + proof).first)
    }

    /// One JSON message as a single part ("whole", place 3); returns the whole answer,
    /// asking for report parts as the SDK does, and the acknowledgement's cause.
    mutating func message(_ json: String) throws -> (cause: UInt16, body: [UInt8]) {
        let acknowledgement = try #require(try write([0x23, 0x00, 0x00] + Array(json.utf8)).first)
        #expect(acknowledgement[0] == 0x23)
        let cause = UInt16(acknowledgement[5]) << 8 | UInt16(acknowledgement[6])
        var body = Array(acknowledgement[7...])
        if cause == 0x05 {
            while true {
                let received = UInt16(body.count)
                let report = try #require(try write([0x33, UInt8(received >> 8), UInt8(received & 0xFF), 0x03, 0xE8, 0x00, 0x04]).first)
                body += report[3...]
                if report[0] == 0x32 { break }
            }
        }
        return (cause, body)
    }
}

@Suite("Virtual KBeacon: its GATT server and KKM's protocol", .timeLimit(.minutes(1)))
struct VirtualKBeaconTests {
    @Test("MD5 is OpenSSL's: RFC 1321's test vector")
    func md5() throws {
        let digest = try #require(Cryptography.md5(Array("abc".utf8)))
        #expect(digest.map { String($0, radix: 16) }.joined() == "90150983cd24fb0d6963f7d28e17f72")
    }

    @Test("discovery: MTU, primary services, characteristics, descriptors, reads; errors worded by the spec")
    func discovery() throws {
        var link = BeaconLink()
        #expect(try link.send(.exchangeMTURequest(clientMTU: 517)) == [.exchangeMTUResponse(serverMTU: 247)])
        let services = try link.send(.readByGroupTypeRequest(start: 1, end: 0xFFFF, type: .primaryService))
        #expect(services == [.readByGroupTypeResponse([
            .init(handle: 1, endGroupHandle: 3, value: [0x00, 0x18]), .init(handle: 4, endGroupHandle: 9, value: [0xA0, 0xFE]),
        ])])
        #expect(try link.send(.readByGroupTypeRequest(start: 10, end: 0xFFFF, type: .primaryService))
            == [.errorResponse(request: ATTOpcode.readByGroupTypeRequest, handle: 10, error: .attributeNotFound)])
        #expect(try link.send(.readByGroupTypeRequest(start: 1, end: 0xFFFF, type: .characteristic))
            == [.errorResponse(request: ATTOpcode.readByGroupTypeRequest, handle: 1, error: .unsupportedGroupType)])
        let characteristics = try link.send(.readByTypeRequest(start: 4, end: 9, type: .characteristic))
        #expect(characteristics == [.readByTypeResponse([
            .init(handle: 5, value: [0x0C, 0x06, 0x00, 0xA1, 0xFE]), .init(handle: 7, value: [0x10, 0x08, 0x00, 0xA2, 0xFE]),
        ])])
        #expect(try link.send(.findInformationRequest(start: 9, end: 9)) == [.findInformationResponse([.init(handle: 9, uuid: .clientCharacteristicConfiguration)])])
        #expect(try link.send(.findByTypeValueRequest(start: 1, end: 0xFFFF, type: 0x2800, value: [0xA0, 0xFE]))
            == [.findByTypeValueResponse([.init(handle: 4, endGroupHandle: 9, value: [])])])
        #expect(try link.send(.readRequest(handle: 3)) == [.readResponse(value: Array("KBeacon-virtual".utf8))])
        #expect(try link.send(.readBlobRequest(handle: 3, offset: 8)) == [.readBlobResponse(part: Array("virtual".utf8))])
        #expect(try link.send(.readBlobRequest(handle: 3, offset: 99)) == [.errorResponse(request: ATTOpcode.readBlobRequest, handle: 3, error: .invalidOffset)])
        #expect(try link.send(.readRequest(handle: 6)) == [.errorResponse(request: ATTOpcode.readRequest, handle: 6, error: .readNotPermitted)])
        #expect(try link.send(.readRequest(handle: 0x0100)) == [.errorResponse(request: ATTOpcode.readRequest, handle: 0x0100, error: .invalidHandle)])
        #expect(try link.send(.writeRequest(handle: 3, value: [1])) == [.errorResponse(request: ATTOpcode.writeRequest, handle: 3, error: .writeNotPermitted)])
        #expect(try link.send(.writeRequest(handle: 9, value: [1])) == [.errorResponse(request: ATTOpcode.writeRequest, handle: 9, error: .invalidAttributeValueLength)])
        #expect(try link.send(.readByTypeRequest(start: 9, end: 4, type: .characteristic))
            == [.errorResponse(request: ATTOpcode.readByTypeRequest, handle: 9, error: .invalidHandle)])
        #expect(try link.send(.prepareWriteRequest(handle: 6, offset: 0, part: [1]))
            == [.errorResponse(request: ATTOpcode.prepareWriteRequest, handle: 6, error: .requestNotSupported)])
        // A request the server does not know, a malformed one, and a command to nowhere.
        #expect(try link.send(bytes: [0x3E, 0x01]) == [.errorResponse(request: 0x3E, handle: 0, error: .requestNotSupported)])
        #expect(try link.send(bytes: [ATTOpcode.readRequest, 0x01]) == [.errorResponse(request: ATTOpcode.readRequest, handle: 0, error: .invalidPDU)])
        #expect(try link.send(.writeCommand(handle: 0x0100, value: [1])).isEmpty)
        #expect(try link.send(.handleValueConfirmation).isEmpty)
    }

    @Test("the factory password authenticates (full digest at MTU 247); getPara answers the factory identity and battery")
    func authenticateAndRead() throws {
        var link = BeaconLink()
        _ = try link.open()
        // Before authenticating, a message is refused with cause 1.
        #expect(try link.message(#"{"msg":"getPara","type":3}"#).cause == 0x01)
        #expect(try link.authenticate(password: KBeaconState.factoryPassword) == [0x13, 0x02, 247])
        let (cause, body) = try link.message(#"{"msg":"getPara","type":3}"#)
        #expect(cause == 0x05)  // longer than one acknowledgement: reports followed
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains(#""btPt":100"#) && text.contains(#""meaPwr":-59"#))
        #expect(text.contains(#""uuid":"7777772E-6B6B-6D63-6E2E-636F6D000001""#))
        #expect(text.contains(#""majorID":1"#) && text.contains(#""minorID":1"#))
    }

    @Test("a cfg message changes the identity, refused values change nothing, and the new identity is advertised once the central has gone")
    func configure() throws {
        var link = BeaconLink()
        _ = try link.open()
        _ = try link.authenticate(password: KBeaconState.factoryPassword)
        #expect(try link.message(#"{"msg":"cfg","meaPwr":-90}"#).cause == 0x02)
        #expect(try link.message(#"{"msg":"cfg","advObj":[{"slot":1,"type":5,"txPwr":9}]}"#).cause == 0x02)
        #expect(try link.message(#"{"msg":"cfg","pwd":"short"}"#).cause == 0x02)
        #expect(try link.message("not json").cause == 0x03)
        #expect(link.beacon.state == KBeaconState.factory())

        let uuid = "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3"
        let write = #"{"msg":"cfg","meaPwr":-61,"advObj":[{"slot":1,"type":5,"uuid":"\#(uuid)","majorID":4,"minorID":12,"txPwr":-8,"advPrd":300}]}"#
        #expect(try link.message(write).cause == 0x00)
        let identity = BeaconIdentity(uuid: try ProximityUUID(parsing: uuid), major: 4, minor: 12)
        #expect(link.beacon.state.identity == identity && link.beacon.state.measuredPower == -61)
        link.beacon.disconnected(handle: link.handle, reason: .remoteUserTerminatedConnection, at: .zero)
        let advertising = try #require(link.beacon.advertising)
        #expect(advertising.data == IBeaconAdvertisement(identity: identity, measuredPower: -61).advertisingData)
        #expect(advertising.interval.microseconds == 300_000 && advertising.txPower == -8 && advertising.connectable)
        #expect(advertising.secondData == VirtualKBeacon.kkmFrame(batteryPercent: 100))
    }

    @Test("three wrong proofs lock the beacon: then even the right password is refused")
    func lockOut() throws {
        var link = BeaconLink()
        _ = try link.open(mtu: 23)
        for attempt in 1...3 {
            #expect(try link.authenticate(password: "1234567890123456") == [0x13, 0xF1])
            #expect(link.beacon.failedAttempts == attempt)
        }
        #expect(link.beacon.isLockedOut)
        #expect(try link.write([0x13, 0x01, 9, 9, 9, 9]) == [[0x13, 0xF1]])
        // Messages stay refused (cause 1); "{}" fits a write at MTU 23.
        #expect(try link.write([0x23, 0x00, 0x00, 0x7B, 0x7D]).first?[6] == 0x01)
    }

    @Test("a challenge left unanswered counts as a failed attempt: when the link ends, or when another challenge comes")
    func abandonedChallenges() throws {
        var link = BeaconLink()
        _ = try link.open()
        _ = try link.write([0x13, 0x01, 1, 1, 1, 1])
        _ = try link.write([0x13, 0x01, 2, 2, 2, 2])
        #expect(link.beacon.failedAttempts == 1)
        link.beacon.disconnected(handle: link.handle, reason: .remoteUserTerminatedConnection, at: .zero)
        #expect(link.beacon.failedAttempts == 2 && !link.beacon.isLockedOut)
        // A challenge answered rightly is no failure.
        link.beacon.connected(handle: link.handle, central: .zero, at: .zero)
        _ = try link.open()
        #expect(try link.authenticate(password: KBeaconState.factoryPassword) == [0x13, 0x02, 247])
        link.beacon.disconnected(handle: link.handle, reason: .remoteUserTerminatedConnection, at: .zero)
        #expect(link.beacon.failedAttempts == 2)
    }

    @Test("at MTU 23 the challenge is folded to 8 bytes, and the folded proof authenticates")
    func foldedChallenge() throws {
        var link = BeaconLink()
        _ = try link.open(mtu: 23)
        let challenge = try #require(try link.write([0x13, 0x01, 5, 6, 7, 8]).first)
        #expect(challenge.count == 14 && challenge[1] == 0x0B)
        var fresh = BeaconLink()
        _ = try fresh.open(mtu: 23)
        #expect(try fresh.authenticate(password: KBeaconState.factoryPassword) == [0x13, 0x02, 23])
    }

    @Test("a message in parts is acknowledged part by part; a part out of place asks for the right offset")
    func messageInParts() throws {
        var link = BeaconLink()
        _ = try link.open()
        _ = try link.authenticate(password: KBeaconState.factoryPassword)
        let json = Array(#"{"msg":"cfg","meaPwr":-65}"#.utf8)
        let first = try #require(try link.write([0x20, 0x00, 0x00] + json[..<10]).first)
        #expect(first[0...6] == [0x23, 0x00, 10, 0x03, 0xE8, 0x00, 0x04])
        let wrongPlace = try #require(try link.write([0x21, 0x00, 0x05] + json[5..<10]).first)
        #expect(wrongPlace[1...2] == [0x00, 10] && wrongPlace[6] == 0x04)
        let last = try #require(try link.write([0x22, 0x00, 10] + json[10...]).first)
        #expect(last[6] == 0x00)
        #expect(link.beacon.state.measuredPower == -65)
    }

    @Test("bytes from a central never crash the beacon, whatever they are")
    func arbitraryInput() {
        var generator = SeededGenerator(seed: 7)
        var beacon = VirtualKBeacon(.init(address: BluetoothAddress(value: 0x06_BE_AC_BA_00_01) ?? .zero))
        beacon.connected(handle: 1, central: .zero, at: .zero)
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...40, using: &generator)
            let data = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let boundary: ACLDataPacket.Boundary = Bool.random(using: &generator) ? .firstNonFlushable : .continuation
            for fragment in beacon.received(ACLDataPacket(handle: 1, boundary: boundary, data: data), at: .zero).fragments {
                #expect(fragment.data.count <= 27)
            }
        }
    }
}

@Suite("Virtual KBeacon on the air", .timeLimit(.minutes(1)))
struct VirtualKBeaconOnAirTests {
    @Test("battery-beacons: factory-fresh KBeacons advertise connectably, take a connection, answer ATT over it, and advertise again after it")
    func onTheAir() async throws {
        let air = VirtualAir(name: "battery-beacons")
        let addresses = VirtualBatteryBeacons.ensure(kbeacons: 2, on: air)
        #expect(addresses == [VirtualBatteryBeacons.address(1), VirtualBatteryBeacons.address(2)])
        #expect(VirtualBatteryBeacons.ensure(kbeacons: 2, on: air) == addresses)  // idempotent
        #expect(air.peripheralAddresses.count == 2)
        #expect(VirtualBatteryBeacons.address(1).description == "06:BE:AC:BA:00:01")

        let scanner = await TestHost(on: air)
        try await scanner.bringUp()
        try await scanner.scanLegacy()
        air.advance(by: .seconds(3))
        let reports = try await scanner.advertisingReports()
        #expect(Set(reports.map(\.address)) == Set(addresses))
        #expect(reports.allSatisfy { $0.eventType == .advInd })
        let factory = try #require(KBeaconState.factory().identity)
        // The iBeacon slot and KKM's frame in each event: the identity, and what names the profile.
        let iBeacons = reports.filter { IBeaconAdvertisement(manufacturerData: $0.data.dropFirst(5))?.identity == factory }
        let kkm = reports.filter { $0.data == VirtualKBeacon.kkmFrame(batteryPercent: 100) }
        #expect(!iBeacons.isEmpty && !kkm.isEmpty && iBeacons.count + kkm.count == reports.count)

        let central = try await LinkHost(on: air)
        try await central.connect(to: addresses[0])
        air.advance(by: .seconds(2))
        let made = try #require(connectionCompletes(try await central.received()).first)
        #expect(made.status == .success)
        let request = L2CAPFrame(channel: L2CAPChannel.attribute, payload: ATTPDU.exchangeMTURequest(clientMTU: 100).bytes)
        for fragment in try #require(request.fragments(handle: made.connectionHandle, fragmentLength: 27)) {
            try await central.host.send(fragment)
        }
        let traffic = try await central.received()
        #expect(completedPackets(traffic).count == 1)
        var reassembler = L2CAPReassembler(maximumFrameLength: 600)
        let frames = aclPackets(traffic).compactMap { reassembler.receive($0).frame }
        #expect(try frames.map { try ATTPDU(bytes: $0.payload) } == [.exchangeMTUResponse(serverMTU: 247)])
        let id = try #require(air.peripheralIDs.first)
        #expect((air.peripheral(id) as? VirtualKBeacon)?.isConnected == true)

        try await central.host.send(Disconnect(connectionHandle: made.connectionHandle))
        #expect(disconnections(try await central.received()).map(\.reason) == [.connectionTerminatedByLocalHost])
        #expect((air.peripheral(id) as? VirtualKBeacon)?.isConnected == false)
        _ = try await scanner.advertisingReports()
        air.advance(by: .seconds(3))
        #expect(try await scanner.advertisingReports().contains { $0.address == addresses[0] })
    }
}
