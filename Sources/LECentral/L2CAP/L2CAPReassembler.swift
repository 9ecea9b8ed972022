import HCI

/// Puts the ACL fragments of one connection back into L2CAP frames (Core v5.4 Vol 3 Part A
/// 7.2.2 and Vol 4 Part E 5.4.2): a fragment that starts a frame carries its 4-byte header,
/// whose length says how many bytes the continuations must bring.
///
/// Memory is bounded: a frame that declares more than `maximumFrameLength` payload bytes is
/// refused at its first fragment, and the bytes that follow it up to its declared length are
/// skipped rather than buffered.
public struct L2CAPReassembler: Sendable {
    /// Why fragments could not be put together; each loses at most the frame it names.
    public enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// A continuation arrived with no frame in progress.
        case unexpectedContinuation(bytes: Int)
        /// A new frame started before the previous one was complete.
        case interruptedFrame(received: Int, expected: Int)
        /// A frame declares more than the bound.
        case frameTooLong(declared: Int, maximum: Int)
        /// A fragment brings more bytes than the frame's length leaves.
        case overrun(declared: Int, received: Int)

        public var description: String {
            switch self {
            case .unexpectedContinuation(let bytes):
                return "an L2CAP continuation fragment (\(bytes) bytes) arrived with no frame in progress; it was dropped"
            case .interruptedFrame(let received, let expected):
                return "an L2CAP frame was cut off after \(received) of its \(expected) bytes by the start of another; it was dropped"
            case .frameTooLong(let declared, let maximum):
                return "an L2CAP frame declares \(declared) payload bytes, more than the \(maximum) this host accepts; it was skipped"
            case .overrun(let declared, let received):
                return "an L2CAP fragment brought \(received) bytes to a frame of \(declared); the frame was dropped"
            }
        }
    }

    public let maximumFrameLength: Int
    /// Header and payload received so far of the frame in progress.
    private var partial: [UInt8] = []
    /// Total bytes (header included) the frame in progress needs; nil before its header is whole.
    private var expectedTotal: Int?
    private var inProgress = false
    /// Bytes still to skip of a refused frame.
    private var skipping = 0

    public init(maximumFrameLength: Int) {
        self.maximumFrameLength = max(0, maximumFrameLength)
    }

    /// What one fragment led to: a completed frame, a frame lost (with why), both (a frame
    /// interrupted by a new one that is whole in its first fragment), or neither.
    public struct Step: Hashable, Sendable {
        public var frame: L2CAPFrame?
        public var failure: Failure?
    }

    /// Takes one fragment. A failure loses only the frame concerned: the next fragment that
    /// starts a frame is read normally.
    public mutating func receive(_ fragment: ACLDataPacket) -> Step {
        if fragment.boundary.startsFrame {
            var interrupted: Failure?
            if inProgress {
                interrupted = .interruptedFrame(received: partial.count, expected: expectedTotal ?? L2CAPFrame.headerLength)
            }
            reset()
            inProgress = true
            var step = append(fragment.data)
            if step.failure == nil { step.failure = interrupted }
            return step
        }
        if skipping > 0 {
            let taken = min(skipping, fragment.data.count)
            skipping -= taken
            guard fragment.data.count == taken else {
                skipping = 0
                return Step(frame: nil, failure: .overrun(declared: maximumFrameLength, received: fragment.data.count - taken))
            }
            return Step(frame: nil, failure: nil)
        }
        guard inProgress else { return Step(frame: nil, failure: .unexpectedContinuation(bytes: fragment.data.count)) }
        return append(fragment.data)
    }

    /// Whether a frame is partly received.
    public var isMidFrame: Bool { inProgress }

    private mutating func append(_ data: [UInt8]) -> Step {
        if let total = expectedTotal, partial.count + data.count > total {
            let received = partial.count + data.count - L2CAPFrame.headerLength
            reset()
            return Step(frame: nil, failure: .overrun(declared: total - L2CAPFrame.headerLength, received: received))
        }
        partial += data
        if expectedTotal == nil {
            guard partial.count >= L2CAPFrame.headerLength else { return Step(frame: nil, failure: nil) }
            let declared = Int(partial[0]) | Int(partial[1]) << 8
            let payloadSoFar = partial.count - L2CAPFrame.headerLength
            guard declared <= maximumFrameLength else {
                reset()
                skipping = max(0, declared - payloadSoFar)
                return Step(frame: nil, failure: .frameTooLong(declared: declared, maximum: maximumFrameLength))
            }
            guard payloadSoFar <= declared else {
                reset()
                return Step(frame: nil, failure: .overrun(declared: declared, received: payloadSoFar))
            }
            expectedTotal = L2CAPFrame.headerLength + declared
        }
        guard let total = expectedTotal, partial.count == total else { return Step(frame: nil, failure: nil) }
        let channel = UInt16(partial[2]) | UInt16(partial[3]) << 8
        let frame = L2CAPFrame(channel: channel, payload: Array(partial[L2CAPFrame.headerLength...]))
        reset()
        return Step(frame: frame, failure: nil)
    }

    private mutating func reset() {
        partial.removeAll(keepingCapacity: false)
        expectedTotal = nil
        inProgress = false
        skipping = 0
    }
}
