#if os(Linux)
import BeaconCore
import CBlueZ
import Glibc
import HCI
import LECentral
import Testing

@testable import LECentralLinux

@Suite("kernel L2CAP socket values: the ATT address, the MTU options, errno in words")
struct KernelL2CAPValuesTests {
    @Test("sockaddr_l2 carries family, PSM 0, the address least significant byte first, channel 4 little-endian, the LE type")
    func socketAddressLayout() throws {
        let address = try #require(BluetoothAddress("F0:4C:0A:00:00:31"))
        var socketAddress = KernelL2CAPAddress(address: address, kind: .leRandom).socketAddress
        let bytes = withUnsafeBytes(of: &socketAddress) { Array($0) }
        // BlueZ lib/l2cap.h: u16 family, u16 psm, bdaddr_t (6), u16 cid, u8 type; 14 with padding.
        #expect(MemoryLayout<sockaddr_l2>.size == 14)
        #expect(Array(bytes[0..<2]) == [UInt8(AF_BLUETOOTH), 0])
        #expect(Array(bytes[2..<4]) == [0, 0])
        #expect(Array(bytes[4..<10]) == [0x31, 0x00, 0x00, 0x0A, 0x4C, 0xF0])
        #expect(Array(bytes[10..<12]) == [0x04, 0x00])
        #expect(bytes[12] == 2)
        #expect(KernelL2CAPAddress.Kind(.public) == .lePublic)
        #expect(KernelL2CAPAddress.Kind(.random) == .leRandom)
        #expect(KernelL2CAPAddress.Kind.lePublic.rawValue == UInt8(BDADDR_LE_PUBLIC))
        #expect(KernelL2CAPAddress.Kind.leRandom.rawValue == UInt8(BDADDR_LE_RANDOM))
    }

    @Test("BT_RCVMTU and BT_SNDMTU: the smaller MTU limits ATT PDUs")
    func mtuOptions() throws {
        let mtu = try #require(KernelL2CAPMTU(receiveOption: Self.u16(672), sendOption: Self.u16(185)))
        #expect(mtu == KernelL2CAPMTU(receive: 672, send: 185))
        #expect(mtu.largestATTPDU == 185)
        #expect(KernelL2CAPMTU(receiveOption: Self.u16(100), sendOption: Self.u16(672))?.largestATTPDU == 100)
    }

    @Test("L2CAP_OPTIONS: omtu first, then imtu")
    func l2capOptions() throws {
        var options = l2cap_options()
        options.omtu = 300
        options.imtu = 672
        let bytes = withUnsafeBytes(of: &options) { Array($0) }
        let mtu = try #require(KernelL2CAPMTU(l2capOptions: bytes))
        #expect(mtu == KernelL2CAPMTU(receive: 672, send: 300))
        #expect(mtu.largestATTPDU == 300)
    }

    @Test("malformed or unset MTUs: nil for too few bytes, no limit for zeros, never below ATT's 23")
    func mtuEdges() {
        #expect(KernelL2CAPMTU(receiveOption: [0x02], sendOption: Self.u16(23)) == nil)
        #expect(KernelL2CAPMTU(receiveOption: Self.u16(23), sendOption: [0x02, 0x00, 0x00]) == nil)
        #expect(KernelL2CAPMTU(receiveOption: [], sendOption: []) == nil)
        #expect(KernelL2CAPMTU(l2capOptions: [1, 2, 3]) == nil)
        #expect(KernelL2CAPMTU(receive: 0, send: 0).largestATTPDU == nil)
        #expect(KernelL2CAPMTU(receive: 0, send: 512).largestATTPDU == 512)
        #expect(KernelL2CAPMTU(receive: 5, send: 672).largestATTPDU == ATTClient.defaultMTU)
    }

    @Test("errno in words: the link's end and the connection's failure say what happened and name the error")
    func errnoWords() {
        #expect(KernelL2CAPErrno.words(ETIMEDOUT, while: .connected)
            == "the link was lost (supervision timeout): the peripheral went out of range, was switched off or stopped answering (ETIMEDOUT)")
        #expect(KernelL2CAPErrno.words(ETIMEDOUT, while: .connecting).hasPrefix("the kernel gave up connecting: the peripheral did not answer"))
        #expect(KernelL2CAPErrno.words(ECONNRESET, while: .connected) == "the peripheral ended the connection (ECONNRESET)")
        #expect(KernelL2CAPErrno.words(EHOSTDOWN, while: .connecting) == "the peripheral did not answer (EHOSTDOWN)")
        #expect(KernelL2CAPErrno.words(ECONNREFUSED, while: .connecting).hasSuffix("(ECONNREFUSED)"))
        #expect(KernelL2CAPErrno.words(EBUSY, while: .connecting).contains("another LE connection attempt"))
        #expect(KernelL2CAPErrno.words(EHOSTUNREACH, while: .connecting).contains("controller is down"))
        #expect(KernelL2CAPErrno.name(of: 9999) == "errno 9999")
        #expect(KernelL2CAPErrno.words(ENOSPC, while: .connected) == "No space left on device (errno \(ENOSPC))")
    }

    private static func u16(_ value: UInt16) -> [UInt8] {
        withUnsafeBytes(of: value) { Array($0) }
    }
}
#endif
