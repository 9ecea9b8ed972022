import BeaconCore
import CryptoPrimitives
import HCI
import LECentral

@testable import VirtualBeacons
@testable import VirtualRadio

/// libFuzzer entry: bytes from a central, into the virtual radio's battery beacons.
///
/// The first byte picks the setting: bit 2, the Eddystone configuration beacon instead of
/// the KBeacon; bit 0, authenticate first with the factory password (KBeacon: so that KKM's
/// messages are reached) or unlock with the factory lock code (Eddystone: so that every
/// characteristic is reached); bit 1, go through an air (a central's controller connected to
/// the beacon, the bytes sent as HCI ACL packets with any header) instead of straight into
/// the beacon. The rest are records: a control byte (low 6 bits: length; top 2 bits: 0 a
/// first ACL fragment, 1 a continuation, 2 an ATT Write Request of the data to 0xFEA1 for
/// the KBeacon, or for the Eddystone beacon to characteristic n of the service, n the data's
/// first byte, the rest the value; 3 the data as one whole ATT PDU), then its data. Checked:
/// every fragment the beacon sends fits 27 bytes, every frame it completes is an ATT PDU that
/// decodes and fits its MTU, and the beacon's settings stay within the model's limits.
/// Built by scripts/fuzz.sh; not part of the SwiftPM package.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVirtualBeacon(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let setting = bytes.first else { return 0 }
    let address = BluetoothAddress(value: 0x06_BE_AC_BA_00_01) ?? .zero
    let records = Array(bytes.dropFirst())
    if setting & 0x02 != 0 {
        throughAnAir(records, address: address, eddystone: setting & 0x04 != 0)
        return 0
    }
    if setting & 0x04 != 0 {
        fuzzEddystone(records, unlock: setting & 0x01 != 0, address: address)
        return 0
    }
    var beacon = VirtualKBeacon(.init(address: address))
    beacon.connected(handle: 0x40, central: .zero, at: .zero)
    var reassembler = L2CAPReassembler(maximumFrameLength: 600)
    func deliver(_ fragment: ACLDataPacket) {
        for packet in beacon.received(fragment, at: .zero).fragments {
            guard packet.data.count <= 27 else { fatalError("a fragment of \(packet.data.count) bytes") }
            guard let frame = reassembler.receive(packet).frame else { continue }
            guard frame.payload.count <= 247, (try? ATTPDU(bytes: frame.payload)) != nil else {
                fatalError("the beacon sent a frame that is no ATT PDU within its MTU: \(frame.payload)")
            }
        }
    }
    func send(_ pdu: [UInt8]) {
        for fragment in L2CAPFrame(channel: L2CAPChannel.attribute, payload: pdu).fragments(handle: 0x40, fragmentLength: 27) ?? [] {
            deliver(fragment)
        }
    }
    if setting & 0x01 != 0 {
        send(ATTPDU.exchangeMTURequest(clientMTU: 247).bytes)
        send(ATTPDU.writeRequest(handle: 0x0009, value: [0x01, 0x00]).bytes)
        authenticate(&beacon, address: address)
    }
    forEachRecord(records) { kind, data in
        switch kind {
        case 0: deliver(ACLDataPacket(handle: 0x40, boundary: .firstNonFlushable, data: data))
        case 1: deliver(ACLDataPacket(handle: 0x40, boundary: .continuation, data: data))
        case 2: send(ATTPDU.writeRequest(handle: 0x0006, value: data).bytes)
        default: send(data)
        }
    }
    let state = beacon.state
    guard (-80...0).contains(state.measuredPower), state.slots.count <= 5, (8...16).contains(state.password.utf8.count),
        state.slots.allSatisfy({ (state.minimumTxPower...state.maximumTxPower).contains($0.txPower) && (100...20_000).contains($0.interval) })
    else { fatalError("the beacon accepted settings outside its limits: \(state)") }
    return 0
}

/// The records into a connected ``VirtualEddystoneBeacon``.
private func fuzzEddystone(_ records: [UInt8], unlock: Bool, address: BluetoothAddress) {
    var beacon = VirtualEddystoneBeacon(.init(address: address))
    beacon.connected(handle: 0x40, central: .zero, at: .zero)
    var reassembler = L2CAPReassembler(maximumFrameLength: 600)
    var answers: [ATTPDU] = []
    func deliver(_ fragment: ACLDataPacket) {
        for packet in beacon.received(fragment, at: .zero).fragments {
            guard packet.data.count <= 27 else { fatalError("a fragment of \(packet.data.count) bytes") }
            guard let frame = reassembler.receive(packet).frame else { continue }
            guard frame.payload.count <= 247, let pdu = try? ATTPDU(bytes: frame.payload) else {
                fatalError("the beacon sent a frame that is no ATT PDU within its MTU: \(frame.payload)")
            }
            answers.append(pdu)
        }
    }
    func send(_ pdu: [UInt8]) {
        for fragment in L2CAPFrame(channel: L2CAPChannel.attribute, payload: pdu).fragments(handle: 0x40, fragmentLength: 27) ?? [] {
            deliver(fragment)
        }
    }
    /// Characteristic n's value handle: after Generic Access (1–3), the Battery Service (4–6)
    /// and the service's declaration (7), a declaration and a value each.
    func valueHandle(_ characteristic: UInt8) -> UInt16 { 7 + 2 * UInt16(characteristic) }
    if unlock {
        send(ATTPDU.exchangeMTURequest(clientMTU: 247).bytes)
        answers = []
        send(ATTPDU.readRequest(handle: valueHandle(7)).bytes)
        if case .readResponse(let challenge)? = answers.first,
            let token = Cryptography.aes128ECB(key: EddystoneBeaconState.factoryLockCode, block: challenge)
        {
            send(ATTPDU.writeRequest(handle: valueHandle(7), value: token).bytes)
        }
        guard beacon.lockState == 0x01 else { fatalError("the factory lock code did not unlock the beacon") }
    }
    forEachRecord(records) { kind, data in
        switch kind {
        case 0: deliver(ACLDataPacket(handle: 0x40, boundary: .firstNonFlushable, data: data))
        case 1: deliver(ACLDataPacket(handle: 0x40, boundary: .continuation, data: data))
        case 2: send(ATTPDU.writeRequest(handle: valueHandle(data.first ?? 0), value: Array(data.dropFirst())).bytes)
        default: send(data)
        }
    }
    let state = beacon.state
    guard state.slots.count == EddystoneBeaconState.slotCount, state.lockCode.count == 16,
        state.slots.allSatisfy({
            EddystoneBeaconState.intervals.contains($0.interval) && EddystoneBeaconState.supportedTxPowers.contains($0.radioTxPower)
        })
    else { fatalError("the beacon accepted settings outside its limits: \(state)") }
    if !unlock, beacon.lockState != 0x00 || state != EddystoneBeaconState.factory(instance: address.value) {
        // Without the lock code nothing can unlock it (a token is AES under a code the bytes
        // would have to guess): any change is the lock failing.
        fatalError("the locked beacon changed without its lock code: \(state)")
    }
}

/// The records after the setting byte: (kind, data).
private func forEachRecord(_ records: [UInt8], _ body: (UInt8, [UInt8]) -> Void) {
    var offset = 0
    while offset < records.count {
        let control = records[offset]
        let start = offset + 1
        let end = min(records.count, start + Int(control & 0x3F))
        body(control >> 6, Array(records[start..<end]))
        offset = end
    }
}

/// The factory password's challenge-response, straight into the firmware (as the tests do).
private func authenticate(_ beacon: inout VirtualKBeacon, address: BluetoothAddress) {
    let request: [UInt8] = [0x13, 0x01, 1, 2, 3, 4]
    var answers: [[UInt8]] = []
    var reassembler = L2CAPReassembler(maximumFrameLength: 600)
    func write(_ value: [UInt8]) {
        let pdu = ATTPDU.writeRequest(handle: 0x0006, value: value).bytes
        for fragment in L2CAPFrame(channel: L2CAPChannel.attribute, payload: pdu).fragments(handle: 0x40, fragmentLength: 27) ?? [] {
            for packet in beacon.received(fragment, at: .zero).fragments {
                if let frame = reassembler.receive(packet).frame, case .handleValueNotification(_, let value)? = try? ATTPDU(bytes: frame.payload) {
                    answers.append(value)
                }
            }
        }
    }
    write(request)
    guard let challenge = answers.first, challenge.count >= 6 else { return }
    let random = Array(challenge[2..<6])
    guard let proof = Cryptography.md5(address.littleEndianBytes + [0xA9, 0xB1] + random + Array(KBeaconState.factoryPassword.utf8)) else { return }
    write([0x13, challenge[1] == 0x0B ? 0x0C : 0x02] + (challenge[1] == 0x0B ? KBeaconFirmware.fold(proof) : proof))
}

/// The records as HCI ACL packets from a central's controller connected to the beacon on
/// an air: the first two bytes of each record's data are the ACL header's handle and flags.
private func throughAnAir(_ records: [UInt8], address: BluetoothAddress, eddystone: Bool) {
    let air = VirtualAir(name: "fuzz")
    var configuration = VirtualControllerConfiguration(address: address)
    configuration.motion = .fixed(PlanPoint(x: 1, y: 0))
    if eddystone {
        air.attachPeripheral(VirtualEddystoneBeacon(.init(address: address)), configuration: configuration)
    } else {
        air.attachPeripheral(VirtualKBeacon(.init(address: address)), configuration: configuration)
    }
    let central = air.attachController()
    guard let scan = try? ScanInterval(milliseconds: 60),
        let connect = try? LEExtendedCreateConnection(
            scanInterval: scan, scanWindow: scan, peerAddressType: .public, peerAddress: address, ownAddressType: .public,
            connection: .quickExchange),
        let command = try? HCICommandPacket(connect)
    else { return }
    air.receive(command.packet, from: central.controller)
    air.advance(by: .seconds(2))
    forEachRecord(records) { kind, data in
        // Any header: the handle and flags the record's first two bytes say, any length field.
        let header: [UInt8] = data.count >= 2 ? [data[0], data[1]] : [0x01, kind == 1 ? 0x10 : 0x00]
        let length = UInt16(kind == 3 ? (data.count + 7) : data.count)
        air.receive(HCIPacket(type: .acl, body: header + [UInt8(length & 0xFF), UInt8(length >> 8)] + data), from: central.controller)
        air.advance(by: .milliseconds(50))
    }
    air.shutdown()
}
