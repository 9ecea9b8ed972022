import BeaconCore
import HCI
import LECentral
import Testing
import VirtualRadio

/// A central's end of one link to a virtual GATT peripheral, without an air: ATT PDUs in,
/// the peripheral's ATT PDUs out, through L2CAP frames cut into 27-byte ACL fragments.
/// Each beacon's tests add its protocol's steps in an extension.
struct CentralLink<Peripheral: VirtualPeripheral> {
    var beacon: Peripheral
    private var reassembler = L2CAPReassembler(maximumFrameLength: 600)
    let handle: UInt16 = 0x0040
    let central: BluetoothAddress

    /// Connects `central` to `beacon`.
    init(_ beacon: Peripheral, central: BluetoothAddress) {
        self.beacon = beacon
        self.central = central
        self.beacon.connected(handle: handle, central: central, at: .zero)
    }

    /// Sends `pdu` and returns what the beacon answered, in order.
    mutating func send(_ pdu: ATTPDU) throws -> [ATTPDU] {
        try send(bytes: pdu.bytes)
    }

    mutating func send(bytes: [UInt8]) throws -> [ATTPDU] {
        let fragments = try #require(L2CAPFrame(channel: L2CAPChannel.attribute, payload: bytes).fragments(handle: handle, fragmentLength: 27))
        var answers: [ATTPDU] = []
        for fragment in fragments {
            for packet in beacon.received(fragment, at: .zero).fragments {
                #expect(packet.data.count <= 27)
                if let frame = reassembler.receive(packet).frame {
                    answers.append(try ATTPDU(bytes: frame.payload))
                }
            }
        }
        return answers
    }

    /// Ends the link and makes a new one.
    mutating func reconnect() {
        beacon.disconnected(handle: handle, reason: .remoteUserTerminatedConnection, at: .zero)
        beacon.connected(handle: handle, central: central, at: .zero)
    }
}
