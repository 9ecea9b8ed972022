import BeaconCore
import CryptoPrimitives
import HCI
import LECentral
import Testing
import VirtualRadio

@testable import VirtualBeacons

/// A central's end of one link to a ``VirtualEddystoneBeacon``, with the configuration
/// service's steps.
typealias EddystoneLink = CentralLink<VirtualEddystoneBeacon>

extension CentralLink where Peripheral == VirtualEddystoneBeacon {
    static var address: BluetoothAddress { BluetoothAddress(value: 0x06_BE_AC_BA_01_01) ?? .zero }

    init(_ configuration: VirtualEddystoneBeacon.Configuration = .init(address: EddystoneLink.address)) {
        self.init(VirtualEddystoneBeacon(configuration), central: .zero)
    }

    /// The value handle of the service's characteristic n (1…12): Generic Access takes
    /// handles 1–3, the Battery Service 4–6, the service's declaration 7, then each
    /// characteristic a declaration and its value.
    static func value(_ characteristic: EddystoneFirmware.Characteristic) -> UInt16 {
        7 + 2 * UInt16(characteristic.rawValue)
    }

    /// The read's value, or the error code it got.
    mutating func read(_ characteristic: EddystoneFirmware.Characteristic) throws -> AttributeRead {
        let answer = try send(.readRequest(handle: Self.value(characteristic)))
        switch answer.first {
        case .readResponse(let value)?: return .value(value)
        case .errorResponse(_, _, let code)?: return .refused(code)
        default:
            Issue.record("unexpected answer \(answer)")
            return .refused(.unlikelyError)
        }
    }

    /// `nil` when the write was taken, else its error code.
    mutating func write(_ characteristic: EddystoneFirmware.Characteristic, _ value: [UInt8]) throws -> ATTErrorCode? {
        let answer = try send(.writeRequest(handle: Self.value(characteristic), value: value))
        switch answer.first {
        case .writeResponse?: return nil
        case .errorResponse(_, _, let code)?: return code
        default:
            Issue.record("unexpected answer \(answer)")
            return .unlikelyError
        }
    }

    /// Reads a challenge and writes AES-128-ECB(code, challenge); `nil` when unlocked.
    mutating func unlock(_ code: [UInt8]) throws -> ATTErrorCode? {
        let challenge = try #require(try read(.unlock).bytes)
        #expect(challenge.count == 16)
        return try write(.unlock, try #require(Cryptography.aes128ECB(key: code, block: challenge)))
    }
}

@Suite("Virtual Eddystone beacon: the Eddystone Configuration GATT Service", .timeLimit(.minutes(1)))
struct VirtualEddystoneBeaconTests {
    static let factory = EddystoneBeaconState.factoryLockCode
    static let newCode: [UInt8] = Array(0x10...0x1F)

    @Test("AES-128 deciphering is OpenSSL's: FIPS-197 C.1 back to its plaintext")
    func aesDecrypt() throws {
        let key = Array(UInt8(0x00)...UInt8(0x0F))
        let plaintext: [UInt8] = [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF]
        let ciphertext: [UInt8] = [0x69, 0xC4, 0xE0, 0xD8, 0x6A, 0x7B, 0x04, 0x30, 0xD8, 0xCD, 0xB7, 0x80, 0x70, 0xB4, 0xC5, 0x5A]
        #expect(Cryptography.aes128ECBDecrypt(key: key, block: ciphertext) == plaintext)
        #expect(Cryptography.aes128ECBDecrypt(key: key, block: [1, 2]) == nil)
    }

    @Test("discovery: the service's 128-bit UUID, its twelve characteristics, the battery level")
    func discovery() throws {
        var link = EddystoneLink(.init(address: EddystoneLink.address, state: .factory(batteryPercent: 37)))
        #expect(try link.send(.exchangeMTURequest(clientMTU: 247)) == [.exchangeMTUResponse(serverMTU: 247)])
        let service = try #require(AttributeUUID("a3c87500-8ed3-4bdf-8a39-a01bebede295"))
        #expect(try link.send(.readByGroupTypeRequest(start: 7, end: 0xFFFF, type: .primaryService))
            == [.readByGroupTypeResponse([.init(handle: 7, endGroupHandle: 31, value: service.littleEndian)])])
        let declarations = try link.send(.readByTypeRequest(start: 8, end: 31, type: .characteristic))
        guard case .readByTypeResponse(let entries)? = declarations.first else {
            Issue.record("no declarations: \(declarations)")
            return
        }
        // 21-byte declarations: as many as fit an MTU of 247.
        #expect(entries.count == 11)
        #expect(entries.first?.value == [0x02, 0x09, 0x00] + EddystoneFirmware.Characteristic.capabilities.uuid.littleEndian)
        #expect(EddystoneFirmware.Characteristic.slotData.uuid == AttributeUUID("a3c8750a-8ed3-4bdf-8a39-a01bebede295"))
        #expect(try link.send(.readRequest(handle: 6)) == [.readResponse(value: [37])])
    }

    @Test("locked: only the lock state, the challenge and remain-connectable read; every write but the token refused")
    func lockedRefusals() throws {
        var link = EddystoneLink()
        #expect(try link.read(.lockState) == .value([0x00]))
        #expect(try link.read(.remainConnectable) == .value([0x00]))
        for characteristic in [EddystoneFirmware.Characteristic.capabilities, .activeSlot, .advertisingInterval, .radioTxPower,
            .advertisedTxPower, .publicECDHKey, .eidIdentityKey, .slotData] {
            #expect(try link.read(characteristic) == .refused(.readNotPermitted), "\(characteristic)")
        }
        #expect(try link.read(.factoryReset) == .refused(.readNotPermitted))
        let writes: [(EddystoneFirmware.Characteristic, [UInt8])] = [
            (.activeSlot, [0]), (.advertisingInterval, [0x01, 0x5E]), (.radioTxPower, [0xFC]), (.advertisedTxPower, [0xF0]),
            (.lockState, [0x02]), (.slotData, [0x20]), (.factoryReset, [0x0B]), (.remainConnectable, [0x01]), (.capabilities, [0]),
        ]
        for (characteristic, value) in writes {
            #expect(try link.write(characteristic, value) == .writeNotPermitted, "\(characteristic)")
        }
        #expect(link.beacon.state == .factory(instance: EddystoneLink.address.value))
        #expect(link.beacon.lockState == 0x00 && link.beacon.failedAttempts == 0)
    }

    @Test("unlocked with the right token: every characteristic readable, the capabilities as documented")
    func unlockRight() throws {
        var link = EddystoneLink()
        #expect(try link.unlock(Self.factory) == nil)
        #expect(try link.read(.lockState) == .value([0x01]))
        #expect(try link.read(.capabilities) == .value([0x00, 0x03, 0x00, 0x03, 0x00, 0x07, 0xEC, 0xF0, 0xF4, 0xF8, 0xFC, 0x00, 0x04]))
        #expect(try link.read(.activeSlot) == .value([0x00]))
        #expect(try link.read(.advertisingInterval) == .value([0x03, 0xE8]))
        #expect(try link.read(.radioTxPower) == .value([0x00]))
        #expect(try link.read(.advertisedTxPower) == .value([0x00]))
        let uid = try #require(try link.read(.slotData).bytes)
        #expect(uid.count == 20 && uid[0] == 0x00 && Array(uid[2..<12]) == EddystoneBeaconState.factoryNamespace)
        #expect(Array(uid[12..<18]) == [0x06, 0xBE, 0xAC, 0xBA, 0x01, 0x01])
        #expect(try link.read(.publicECDHKey) == .refused(.requestNotSupported))
        // Unlock is for a locked beacon only.
        #expect(try link.read(.unlock) == .refused(.readNotPermitted))
        #expect(try link.write(.unlock, [UInt8](repeating: 0, count: 16)) == .writeNotPermitted)
        #expect(link.beacon.failedAttempts == 0)
    }

    @Test("a wrong token is refused and counted; one without a challenge, or replayed, is refused; three lock the beacon out")
    func unlockWrongAndLockOut() throws {
        var link = EddystoneLink()
        // No challenge read yet: refused, not counted (it tested no code).
        #expect(try link.write(.unlock, [UInt8](repeating: 0, count: 16)) == .writeNotPermitted)
        #expect(link.beacon.failedAttempts == 0)
        #expect(try link.write(.unlock, [1, 2, 3]) == .invalidAttributeValueLength)
        #expect(try link.unlock(Self.newCode) == .writeNotPermitted)
        #expect(link.beacon.failedAttempts == 1 && link.beacon.lockState == 0x00)
        // A token answers one challenge only: the right token for a used challenge is refused.
        let challenge = try #require(try link.read(.unlock).bytes)
        let token = try #require(Cryptography.aes128ECB(key: Self.factory, block: challenge))
        #expect(try link.write(.unlock, token) == nil)
        #expect(try link.write(.lockState, [0x00]) == nil)
        #expect(try link.write(.unlock, token) == .writeNotPermitted)
        #expect(link.beacon.failedAttempts == 1)
        // Challenges differ from one read to the next.
        #expect(try link.read(.unlock).bytes != challenge)

        #expect(try link.unlock(Self.newCode) == .writeNotPermitted)
        #expect(!link.beacon.isLockedOut)
        link.reconnect()
        #expect(try link.unlock(Self.newCode) == .writeNotPermitted)
        #expect(link.beacon.isLockedOut && link.beacon.failedAttempts == 3)
        #expect(try link.unlock(Self.factory) == .writeNotPermitted)
        #expect(try link.read(.lockState) == .value([0x00]))
    }

    @Test("writes apply to the active slot: interval clamped, power rounded up to the table, slot data by frame type")
    func writesApplied() throws {
        var link = EddystoneLink()
        #expect(try link.send(.exchangeMTURequest(clientMTU: 247)) == [.exchangeMTUResponse(serverMTU: 247)])
        #expect(try link.unlock(Self.factory) == nil)
        #expect(try link.write(.advertisingInterval, [0x01, 0x5E]) == nil)
        #expect(try link.write(.radioTxPower, [UInt8(bitPattern: -5)]) == nil)
        #expect(link.beacon.state.slots[0].interval == 350 && link.beacon.state.slots[0].radioTxPower == -4)
        #expect(try link.read(.radioTxPower) == .value([0xFC]))
        #expect(try link.write(.radioTxPower, [10]) == nil)
        #expect(link.beacon.state.slots[0].radioTxPower == 4)
        #expect(try link.write(.advertisingInterval, [0x00, 0x14]) == nil)
        #expect(try link.read(.advertisingInterval) == .value([0x00, 0x64]))
        #expect(try link.write(.advertisingInterval, [0xFF, 0xFF]) == nil)
        #expect(link.beacon.state.slots[0].interval == 10_240)
        #expect(try link.write(.advertisingInterval, [0x01]) == .invalidAttributeValueLength)
        #expect(try link.write(.advertisedTxPower, [UInt8(bitPattern: -30)]) == nil)
        #expect(try link.read(.slotData).bytes?[1] == UInt8(bitPattern: -30))

        #expect(try link.write(.activeSlot, [3]) == .invalidAttributeValueLength)
        #expect(try link.write(.activeSlot, [2]) == nil)
        #expect(try link.read(.slotData) == .value([]))
        let namespace = Array(UInt8(0xA0)...UInt8(0xA9))
        #expect(try link.write(.slotData, [0x00] + namespace + [1, 2, 3, 4, 5, 6]) == nil)
        #expect(link.beacon.state.slots[2].frame == .uid(namespace: namespace, instance: [1, 2, 3, 4, 5, 6]))
        #expect(try link.write(.slotData, [0x10, 0x03] + Array("example".utf8) + [0x07]) == nil)
        #expect(try link.read(.slotData) == .value([0x10, 0x00, 0x03] + Array("example".utf8) + [0x07]))
        #expect(try link.write(.slotData, [0x20]) == nil)
        #expect(try link.read(.slotData) == .value([0x20, 0x00, 0x0B, 0xB8, 0x80, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]))
        #expect(try link.write(.slotData, [0x00]) == nil)
        #expect(link.beacon.state.slots[2].frame == nil)
        // Lengths the document does not allow, a URL scheme beyond 0x03, and EID (not simulated).
        for refused: [UInt8] in [[0x00, 1, 2], [0x10], [0x10, 0x04, 0x61], [0x20, 0x00], [0x30] + [UInt8](repeating: 1, count: 33), [0x42]] {
            #expect(try link.write(.slotData, refused) == .invalidAttributeValueLength, "\(refused)")
        }
        #expect(link.beacon.state.slots[2].frame == nil)
        // The active slot is 0 again on the next connection.
        link.reconnect()
        #expect(try link.unlock(Self.factory) == nil)
        #expect(try link.read(.activeSlot) == .value([0x00]))
    }

    @Test("the lock code changed with 0x00 and the new code enciphered with the old: locked, and only the new code unlocks")
    func lockCodeChange() throws {
        var link = EddystoneLink()
        #expect(try link.unlock(Self.factory) == nil)
        #expect(try link.write(.lockState, [0x00, 1, 2]) == .invalidAttributeValueLength)
        #expect(try link.write(.lockState, [0x01]) == .invalidAttributeValueLength)
        let enciphered = try #require(Cryptography.aes128ECB(key: Self.factory, block: Self.newCode))
        #expect(try link.write(.lockState, [0x00] + enciphered) == nil)
        #expect(link.beacon.state.lockCode == Self.newCode)
        #expect(try link.read(.lockState) == .value([0x00]))
        #expect(try link.unlock(Self.factory) == .writeNotPermitted)
        #expect(try link.unlock(Self.newCode) == nil)
    }

    @Test("the link's end relocks a beacon unlocked with 0x01; 0x02 keeps it unlocked")
    func automaticRelock() throws {
        var link = EddystoneLink()
        #expect(try link.unlock(Self.factory) == nil)
        link.reconnect()
        #expect(try link.read(.lockState) == .value([0x00]))
        #expect(try link.unlock(Self.factory) == nil)
        #expect(try link.write(.lockState, [0x02]) == nil)
        link.reconnect()
        #expect(try link.read(.lockState) == .value([0x02]))
        #expect(try link.read(.advertisingInterval) == .value([0x03, 0xE8]))
    }

    @Test("factory reset only on 0x0B and only in lock state 0x01: the slots reset, the lock code kept")
    func factoryReset() throws {
        var link = EddystoneLink()
        #expect(try link.unlock(Self.factory) == nil)
        #expect(try link.write(.advertisingInterval, [0x01, 0x5E]) == nil)
        #expect(try link.write(.slotData, [0x20]) == nil)
        // Any other value is ignored.
        #expect(try link.write(.factoryReset, [0x01]) == nil)
        #expect(link.beacon.factoryResets == 0 && link.beacon.state.slots[0].interval == 350)
        // Lock state 0x02: refused.
        #expect(try link.write(.lockState, [0x02]) == nil)
        #expect(try link.write(.factoryReset, [0x0B]) == .writeNotPermitted)
        // Locked with a new code, unlocked again: the reset keeps that code.
        let enciphered = try #require(Cryptography.aes128ECB(key: Self.factory, block: Self.newCode))
        #expect(try link.write(.lockState, [0x00] + enciphered) == nil)
        #expect(try link.unlock(Self.newCode) == nil)
        #expect(try link.write(.factoryReset, [0x0B]) == nil)
        #expect(link.beacon.factoryResets == 1)
        var expected = EddystoneBeaconState.factory(instance: EddystoneLink.address.value)
        expected.lockCode = Self.newCode
        #expect(link.beacon.state == expected)
    }

    @Test("advertising: the first slot's Eddystone frame at its interval and power, then the service UUID; TLM's voltage from the battery")
    func advertising() throws {
        var link = EddystoneLink(.init(address: EddystoneLink.address, state: .factory(instance: 1, batteryPercent: 40)))
        let factory = try #require(link.beacon.advertising)
        #expect(factory.data.count == 31 && Array(factory.data[3..<11]) == [0x03, 0x03, 0xAA, 0xFE, 0x17, 0x16, 0xAA, 0xFE])
        #expect(factory.secondData == [0x02, 0x01, 0x06, 0x11, 0x07] + EddystoneFirmware.service.littleEndian)
        let second = try AdvertisingInterval(milliseconds: 1000)
        #expect(factory.connectable && factory.interval == second)
        #expect(try link.unlock(Self.factory) == nil)
        #expect(try link.write(.slotData, []) == nil)
        #expect(try link.write(.advertisingInterval, [0x00, 0xC8]) == nil)
        let tlm = try #require(link.beacon.advertising)
        // Slot 0 empty: slot 1's TLM, 2.4 V at 40 %.
        #expect(Array(tlm.data[11...]) == [0x20, 0x00, 0x09, 0x60, 0x80, 0x00, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(try link.write(.activeSlot, [1]) == nil)
        #expect(try link.write(.slotData, [0x00]) == nil)
        let none = try #require(link.beacon.advertising)
        #expect(none.data == VirtualEddystoneBeacon.serviceFrame && none.secondData == nil)
    }

    @Test("arbitrary bytes, locked and unlocked: every answer an ATT PDU in 27-byte fragments, the state within its limits")
    func arbitraryBytes() throws {
        var generator = SeededGenerator(seed: 11)
        for unlocked in [false, true] {
            var link = EddystoneLink()
            if unlocked { #expect(try link.unlock(Self.factory) == nil) }
            for _ in 0..<2000 {
                let length = Int.random(in: 0...40, using: &generator)
                var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                // Aim half of them at the service's handles with a real opcode.
                if bytes.count >= 3, Bool.random(using: &generator) {
                    bytes[0] = [ATTOpcode.readRequest, ATTOpcode.writeRequest, ATTOpcode.writeCommand][Int.random(in: 0...2, using: &generator)]
                    bytes[1] = UInt8.random(in: 7...31, using: &generator)
                    bytes[2] = 0
                }
                _ = try link.send(bytes: bytes)
                let state = link.beacon.state
                #expect(state.slots.count == EddystoneBeaconState.slotCount)
                #expect(state.slots.allSatisfy {
                    EddystoneBeaconState.intervals.contains($0.interval) && EddystoneBeaconState.supportedTxPowers.contains($0.radioTxPower)
                })
                #expect(state.lockCode.count == 16)
            }
        }
    }

    @Test("eddystone-beacons beside battery-beacons: their addresses and places, the battery level given, UID frames and the service on the air")
    func onTheAir() async throws {
        let air = VirtualAir(name: "eddystone-beacons")
        let addresses = VirtualBatteryBeacons.ensure(kbeacons: 1, eddystones: 2, batteryPercent: 40, on: air, around: PlanPoint(x: 5, y: 5))
        #expect(addresses.map(\.description) == ["06:BE:AC:BA:00:01", "06:BE:AC:BA:01:01", "06:BE:AC:BA:01:02"])
        #expect(VirtualBatteryBeacons.ensure(kbeacons: 1, eddystones: 2, batteryPercent: 90, on: air) == addresses)  // idempotent
        #expect(air.peripheralIDs.count == 3)
        let peripherals = air.peripheralIDs.compactMap { air.peripheral($0) }
        let kbeacons = peripherals.compactMap { $0 as? VirtualKBeacon }
        let eddystones = peripherals.compactMap { $0 as? VirtualEddystoneBeacon }
        #expect(kbeacons.map(\.state.batteryPercent) == [40])
        #expect(eddystones.map(\.state.batteryPercent) == [40, 40])
        #expect(eddystones.map(\.lockState) == [0x00, 0x00])
        let second = try #require(air.peripheralIDs.first { (air.peripheral($0) as? VirtualEddystoneBeacon)?.configuration.address == addresses[2] })
        #expect(air.position(of: second) == PlanPoint(x: 7, y: 6))

        let scanner = await TestHost(on: air)
        try await scanner.bringUp()
        try await scanner.scanLegacy()
        air.advance(by: .seconds(3))
        let reports = try await scanner.advertisingReports()
        #expect(Set(reports.map(\.address)) == Set(addresses))
        let fromEddystones = reports.filter { $0.address != addresses[0] }
        #expect(fromEddystones.allSatisfy { $0.eventType == .advInd })
        #expect(fromEddystones.contains { $0.data == VirtualEddystoneBeacon.serviceFrame })
        #expect(fromEddystones.contains { $0.data.count == 31 && $0.data[11] == 0x00 && Array($0.data[13..<23]) == EddystoneBeaconState.factoryNamespace })
        air.shutdown()
    }
}
