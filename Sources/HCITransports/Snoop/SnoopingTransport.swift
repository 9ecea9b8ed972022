import HCI
import Synchronization

/// Wraps any transport and records both directions to a btsnoop file.
///
/// A command is recorded just before it is handed to the wrapped transport, so that a
/// capture never shows an answer before its command. Recording failures (disk full) never
/// disturb the traffic: the first one is kept in `recordingError` and recording stops.
/// Closing this transport closes the wrapped one, and the writer when it owns it.
public final class SnoopingTransport: HCITransport {
    public let wrapped: any HCITransport
    public let writer: BTSnoopWriter
    /// Whether `close()` closes the writer too. A capture shared by successive connections
    /// (a restart after a dropped link records into the same file) is closed by its owner.
    public let closesWriter: Bool
    public let incoming: AsyncThrowingStream<HCIPacket, any Error>
    private let firstRecordingError = Mutex<BTSnoopError?>(nil)
    private let forwarder = Mutex<Task<Void, Never>?>(nil)

    public var name: String { wrapped.name }

    /// Starts forwarding `wrapped.incoming` at once; read `incoming` of this transport instead.
    public init(wrapping wrapped: any HCITransport, writer: BTSnoopWriter, closesWriter: Bool = true) {
        self.wrapped = wrapped
        self.writer = writer
        self.closesWriter = closesWriter
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: HCIPacket.self, throwing: (any Error).self)
        self.incoming = stream
        let source = wrapped.incoming
        let task = Task { [weak self] in
            do {
                for try await packet in source {
                    self?.record(packet, .controllerToHost)
                    continuation.yield(packet)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        forwarder.withLock { $0 = task }
    }

    /// Opens (creates or truncates) the capture file at `path` and wraps `wrapped`.
    public convenience init(wrapping wrapped: any HCITransport, path: String) throws(BTSnoopError) {
        self.init(wrapping: wrapped, writer: try BTSnoopWriter(path: path))
    }

    /// The first error met while writing the capture, if any.
    public var recordingError: BTSnoopError? {
        firstRecordingError.withLock { $0 }
    }

    public func send(_ packet: HCIPacket) async throws(HCITransportError) {
        record(packet, .hostToController)
        try await wrapped.send(packet)
    }

    public func close() async {
        await wrapped.close()
        forwarder.withLock { $0?.cancel() }
        if closesWriter { writer.close() }
    }

    private func record(_ packet: HCIPacket, _ direction: BTSnoopDirection) {
        firstRecordingError.withLock { error in
            guard error == nil else { return }
            do throws(BTSnoopError) {
                try writer.write(packet, direction: direction)
            } catch let failure {
                error = failure
            }
        }
    }
}
