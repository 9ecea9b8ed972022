import HCI
import LECentral
import VirtualRadio

/// The one connection a virtual GATT beacon serves at a time: its handle, the reassembly of
/// the central's L2CAP frames and the ATT server over the beacon's table, both fresh for
/// each connection (the MTU is exchanged per link, Core v5.4 Vol 3 Part F 3.4.2).
struct AttributeLink: Sendable {
    /// The largest L2CAP frame reassembled: an ATT PDU at the largest MTU, and the header.
    static let maximumFrameLength = 517

    private let table: AttributeTable
    private let maximumMTU: Int
    /// The ATT server of the current connection.
    var server: ATTServer
    private var reassembler = L2CAPReassembler(maximumFrameLength: AttributeLink.maximumFrameLength)
    /// The connection's handle, `nil` while no central is connected.
    private(set) var handle: UInt16?

    init(table: AttributeTable, maximumMTU: Int) {
        self.table = table
        self.maximumMTU = maximumMTU
        server = ATTServer(table: table, maximumMTU: maximumMTU)
    }

    mutating func connected(handle: UInt16) {
        self.handle = handle
        server = ATTServer(table: table, maximumMTU: maximumMTU)
        reassembler = L2CAPReassembler(maximumFrameLength: Self.maximumFrameLength)
    }

    mutating func disconnected() {
        handle = nil
    }

    /// The ATT PDU that `fragment` completes; `nil` until a frame is whole, and for a
    /// fragment of another connection. Only the attribute channel is served (Core v5.4
    /// Vol 3 Part A 4: frames on other channels are discarded), so the signalling and
    /// security channels get nothing from a beacon that asks for neither.
    mutating func attributePDU(in fragment: ACLDataPacket) -> [UInt8]? {
        guard fragment.handle == handle else { return nil }
        guard let frame = reassembler.receive(fragment).frame, frame.channel == L2CAPChannel.attribute else { return nil }
        return frame.payload
    }

    /// ATT PDUs to the central on this connection, each as ACL fragments of 27 bytes (the
    /// LE minimum data PDU payload, Core v5.4 Vol 6 Part B 2.4).
    func reply(_ pdus: [[UInt8]]) -> VirtualPeripheralReply {
        guard let handle else { return .none }
        return VirtualPeripheralReply(fragments: pdus.flatMap { pdu in
            L2CAPFrame(channel: L2CAPChannel.attribute, payload: pdu).fragments(handle: handle, fragmentLength: 27) ?? []
        })
    }
}
