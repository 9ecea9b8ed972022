import HCI

/// Why an LE central operation failed: what happened, with which peripheral on which
/// controller, and (in `description`) what to try next.
public struct LECentralError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// A command to the controller failed (preparing it, connecting, disconnecting).
        case controller(HCIError)
        /// No connection within the deadline; the attempt was cancelled.
        case connectionTimeout(Duration)
        /// The controller reported the connection attempt failed.
        case connectionFailed(HCIStatus)
        /// The link is gone (or was never up): `reason` as the controller gave it.
        case disconnected(reason: HCIStatus?)
        /// The server answered a request with an Error Response.
        case attribute(request: UInt8, handle: UInt16, error: ATTErrorCode)
        /// No response within the ATT transaction timeout; the bearer may not be used again.
        case transactionTimeout(Duration)
        /// The server's answer could not be decoded or does not fit the request.
        case malformedResponse(String)
        /// The caller's request cannot be carried (too long a value, an invalid handle range).
        case invalidRequest(String)
        /// The calling task was cancelled.
        case cancelled
        /// The transport to the controller failed.
        case transport(HCITransportError)
        /// The operating system's socket for the link failed or ended (a Linux kernel L2CAP
        /// socket): what it reported, already in words, with the error's name.
        case socket(String)
    }

    /// `tcp-client:127.0.0.1:6402`, or `…: peripheral F0:11:22:33:44:55` once connecting.
    public var context: String
    public var kind: Kind

    public init(context: String, kind: Kind) {
        self.context = context
        self.kind = kind
    }

    public var description: String {
        switch kind {
        case .controller(let error):
            return "\(context): \(error)"
        case .connectionTimeout(let deadline):
            return "\(context): no connection within \(deadline): the peripheral did not answer; check that it is "
                + "advertising connectably (a beacon may need a button press to wake) and is in range"
        case .connectionFailed(let status):
            return "\(context): the connection failed: \(DisconnectionReason.words(for: status))"
        case .disconnected(let reason):
            let why = reason.map { DisconnectionReason.words(for: $0) } ?? "the link to the controller ended"
            return "\(context): not connected: \(why)"
        case .attribute(let request, let handle, let error):
            return "\(context): \(ATTOpcode.name(request)) for handle \(HexText.code(handle, digits: 4)) was refused: "
                + "\(error)"
        case .transactionTimeout(let timeout):
            return "\(context): the peripheral did not answer an attribute request within \(timeout); "
                + "disconnect and connect again"
        case .malformedResponse(let what):
            return "\(context): the peripheral answered with a malformed attribute PDU: \(what)"
        case .invalidRequest(let what):
            return "\(context): \(what)"
        case .cancelled:
            return "\(context): cancelled"
        case .transport(let error):
            return "\(context): \(error)"
        case .socket(let what):
            return "\(context): \(what)"
        }
    }
}

/// Disconnection and connection-failure reasons in plain words (the HCI error codes of Core
/// v5.4 Vol 1 Part F 1.3, as they occur on LE links).
public enum DisconnectionReason {
    public static func words(for status: HCIStatus) -> String {
        let meaning: String
        switch status.rawValue {
        case 0x08: meaning = "the link was lost (supervision timeout): the peripheral went out of range, was switched off or stopped answering"
        case 0x13: meaning = "the peripheral ended the connection"
        case 0x14: meaning = "the peripheral ended the connection: it ran out of resources"
        case 0x15: meaning = "the peripheral ended the connection: it is powering off"
        case 0x16: meaning = "this host ended the connection"
        case 0x05: meaning = "authentication failed"
        case 0x3B: meaning = "the peripheral could not accept the connection parameters"
        case 0x3D: meaning = "the link's encryption failed (MIC failure)"
        case 0x3E: meaning = "the connection could not be established: the peripheral did not answer after accepting it (interference, or it moved away)"
        case 0x22: meaning = "the peripheral stopped answering link-layer requests"
        case 0x02: meaning = "the connection attempt was cancelled"
        case 0x07, 0x09, 0x0D: meaning = "the controller has no room for another connection"
        case 0x0B: meaning = "a connection to this peripheral already exists"
        case 0x0C: meaning = "the controller refused (it may be connecting, scanning or advertising in a way that forbids it)"
        case 0x1A: meaning = "the peripheral does not support a feature the link needs"
        default: meaning = status.name
        }
        return "\(meaning) (\(HexText.code(status.rawValue)))"
    }
}
