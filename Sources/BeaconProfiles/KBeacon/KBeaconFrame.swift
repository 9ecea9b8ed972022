/// The frames of KKM's KBeacon configuration protocol over GATT, as the vendor's MIT-licensed
/// Android SDK sends and reads them (kkmhogen/android_kbeaconlib2,
/// kbeaconlib2/src/main/java/com/kkmcn/kbeaconlib2/KBeacon.java: `sendNextCfgData`,
/// `configSendDataRptAck`, `handleBeaconNtfData`, `configHandleDownCmdAck`,
/// `configHandleReadDataRpt`).
///
/// Every frame starts with one byte: the data type in the high nibble, the frame's place in
/// its message (start, middle, end, single) in the low nibble. The central writes to 0xFEA1;
/// the beacon notifies on 0xFEA2.
package enum KBeaconFrame {
    /// High nibble of the first byte.
    package enum DataType: UInt8, Sendable {
        /// Binary (sensor) messages; their acknowledgements come back with this type too.
        case hex = 0x0
        case authentication = 0x1
        /// A JSON message from the central, and the beacon's acknowledgement of it.
        case json = 0x2
        /// A JSON report from the beacon, and the central's acknowledgement of each part.
        case jsonReport = 0x3
        case hexReport = 0x5
    }

    /// Low nibble: where a part sits in its message (`PDU_TAG_*`).
    package enum Place: UInt8, Sendable {
        case start = 0x0
        case middle = 0x1
        case end = 0x2
        case single = 0x3
    }

    /// The SDK's limit on a message the beacon reports (`MAX_BUFFER_DATA_SIZE`).
    package static let maximumMessageLength = 4096
    /// type/place byte and the 16-bit offset before each part the central sends.
    static let partHeaderLength = 3
    /// Before the beacon tells its MTU (authentication phase 2) the SDK assumes ATT_MTU 23,
    /// less ATT's 3 bytes (`BLE4_MTU_SIZE - MTU_SIZE_HEAD`).
    static let defaultFrameLength = 20
    /// The window the SDK announces in every acknowledgement.
    static let acknowledgementWindow: UInt16 = 1000

    static func head(_ type: DataType, _ place: Place) -> UInt8 {
        type.rawValue << 4 | place.rawValue
    }

    /// The part of `message` that starts at `offset`, at most `capacity` bytes of it, framed
    /// as `sendNextCfgData` frames it: single when the whole message fits, else start at
    /// offset 0, middle while more follows, end for the last; the offset big-endian.
    /// `nil` when `offset` is past the message or does not fit 16 bits.
    package static func part(of message: [UInt8], type: DataType, at offset: Int, capacity: Int) -> [UInt8]? {
        guard offset >= 0, offset < message.count || (offset == 0 && message.isEmpty), capacity > 0,
            let sequence = UInt16(exactly: offset)
        else { return nil }
        let place: Place
        var length = capacity
        if message.count <= capacity {
            guard offset == 0 else { return nil }
            place = .single
            length = message.count
        } else if offset == 0 {
            place = .start
        } else if offset + capacity < message.count {
            place = .middle
        } else {
            place = .end
            length = message.count - offset
        }
        return [head(type, place), UInt8(sequence >> 8), UInt8(sequence & 0xFF)] + message[offset..<(offset + length)]
    }

    /// The central's acknowledgement of a reported part (`configSendDataRptAck`): head with
    /// place single, bytes received so far, window, cause (0 accepted, 1 out of sequence),
    /// each 16 bits big-endian. `nil` when `received` does not fit 16 bits.
    package static func reportAcknowledgement(type: DataType, received: Int, cause: UInt16) -> [UInt8]? {
        guard let sequence = UInt16(exactly: received) else { return nil }
        let window = acknowledgementWindow
        return [
            head(type, .single), UInt8(sequence >> 8), UInt8(sequence & 0xFF), UInt8(window >> 8), UInt8(window & 0xFF),
            UInt8(cause >> 8), UInt8(cause & 0xFF),
        ]
    }
}

/// One notification from the beacon's 0xFEA2 characteristic, decoded.
package enum KBeaconNotification: Equatable, Sendable {
    /// Authentication phase 1 (`authHandleResponse`): the beacon's random and its proof
    /// that it knows the password; 16 bytes of MD5, or 8 folded ones in the short form
    /// (0x0B) the beacon picks when the link's MTU is small.
    case challenge(beaconRandom: [UInt8], proof: [UInt8], folded: Bool)
    /// Authentication phase 2: accepted; the beacon's MTU when it tells it.
    case authenticated(mtu: Int?)
    /// 0xF1 (`AUTH_RETURN_FAIL`): the beacon refused.
    case authenticationRefused
    /// The beacon's acknowledgement of a message from the central: the offset it expects or
    /// has, a window, a cause (`BEACON_ACK_*`), and data that may follow (a short answer).
    case acknowledgement(type: KBeaconFrame.DataType, sequence: UInt16, cause: UInt16, data: [UInt8])
    /// A part of a message the beacon reports, at `sequence`.
    case report(type: KBeaconFrame.DataType, place: KBeaconFrame.Place, sequence: UInt16, data: [UInt8])

    /// Acknowledgement causes (KBeacon.java `BEACON_ACK_*`).
    enum Cause {
        static let success: UInt16 = 0x0
        static let expectNext: UInt16 = 0x4
        static let commandReceived: UInt16 = 0x5
        static let executionComplete: UInt16 = 0x6
        static let executionIncomplete: UInt16 = 0x7
    }

    /// Authentication phases (KBAuthHandler.java).
    private enum Phase {
        static let challenge: UInt8 = 0x01
        static let accepted: UInt8 = 0x02
        static let foldedChallenge: UInt8 = 0x0B
        static let refused: UInt8 = 0xF1
    }

    package init(bytes: [UInt8]) throws(KBeaconDecodeError) {
        guard let first = bytes.first else { throw .empty }
        let body = Array(bytes.dropFirst())
        guard let type = KBeaconFrame.DataType(rawValue: first >> 4) else { throw .unknownType(first >> 4) }
        switch type {
        case .authentication:
            guard let phase = body.first else { throw .tooShort(what: "authentication answer", length: bytes.count, needed: 2) }
            let rest = Array(body.dropFirst())
            switch phase {
            case Phase.challenge, Phase.foldedChallenge:
                let folded = phase == Phase.foldedChallenge
                let proofLength = folded ? 8 : 16
                guard rest.count >= 4 + proofLength else {
                    throw .tooShort(what: "authentication challenge", length: bytes.count, needed: 2 + 4 + proofLength)
                }
                self = .challenge(beaconRandom: Array(rest[0..<4]), proof: Array(rest[4..<(4 + proofLength)]), folded: folded)
            case Phase.accepted:
                self = .authenticated(mtu: rest.first.map(Int.init))
            case Phase.refused:
                self = .authenticationRefused
            default:
                throw .unknownPhase(phase)
            }
        case .hex, .json:
            guard body.count >= 6 else { throw .tooShort(what: "acknowledgement", length: bytes.count, needed: 7) }
            self = .acknowledgement(
                type: type, sequence: UInt16(body[0]) << 8 | UInt16(body[1]), cause: UInt16(body[4]) << 8 | UInt16(body[5]),
                data: Array(body[6...]))
        case .jsonReport, .hexReport:
            guard body.count >= 2 else { throw .tooShort(what: "report", length: bytes.count, needed: 3) }
            guard let place = KBeaconFrame.Place(rawValue: first & 0x0F) else { throw .unknownPlace(first & 0x0F) }
            self = .report(type: type, place: place, sequence: UInt16(body[0]) << 8 | UInt16(body[1]), data: Array(body[2...]))
        }
    }
}

/// Why a notification is not a KBeacon frame.
package enum KBeaconDecodeError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case unknownType(UInt8)
    case unknownPhase(UInt8)
    case unknownPlace(UInt8)
    case tooShort(what: String, length: Int, needed: Int)

    package var description: String {
        switch self {
        case .empty: "an empty notification"
        case .unknownType(let type): "a frame of unknown data type \(type)"
        case .unknownPhase(let phase): "an authentication answer of unknown phase 0x\(String(phase, radix: 16))"
        case .unknownPlace(let place): "a report part of unknown place \(place)"
        case .tooShort(let what, let length, let needed): "\(what) of \(length) bytes (at least \(needed) needed)"
        }
    }
}
