/// What carries ATT PDUs between this client and one server: the fixed L2CAP channel 0x0004
/// of an LE link on beaconctl's own host stack, or (on a controller the Linux kernel owns)
/// a kernel L2CAP socket on that channel (`LECentralLinux`).
public protocol ATTBearer: Sendable {
    /// Names the peripheral and the controller in messages.
    var context: String { get }

    /// Sends one PDU; it must fit the bearer's current MTU (the client sees to that).
    func send(_ pdu: [UInt8]) async throws(LECentralError)

    /// The PDUs from the server, in order. Ends with the bearer; when the link dropped,
    /// it finishes with an `LECentralError` saying why.
    var incoming: AsyncThrowingStream<[UInt8], any Error> { get }

    /// The longest PDU the bearer itself can carry each way, when it has a limit below the
    /// ATT MTU the client would ask for (a kernel socket's L2CAP MTUs); `nil` when it has none.
    /// The client never proposes or accepts an ATT_MTU above it.
    var largestPDU: Int? { get }
}

extension ATTBearer {
    public var largestPDU: Int? { nil }
}

/// A notification or indication from the server (Core v5.4 Vol 3 Part F 3.4.7).
public struct ATTHandleValue: Hashable, Sendable {
    public var handle: UInt16
    public var value: [UInt8]
    /// An indication, which the client confirmed.
    public var isIndication: Bool

    public init(handle: UInt16, value: [UInt8], isIndication: Bool) {
        self.handle = handle
        self.value = value
        self.isIndication = isIndication
    }
}
