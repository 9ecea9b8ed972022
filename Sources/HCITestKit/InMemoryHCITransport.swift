import HCI
import Synchronization

/// One end of an in-process link between a host and a controller: what one end sends,
/// the other end receives, in order, without loss.
///
/// Made with `InMemoryHCITransport.pair(name:)`. The host end goes to `HostController`;
/// the controller end is read by a simulated controller (a test script or the virtual
/// radio), which sends its events back through it. Closing either end closes the link;
/// `drop(with:)` simulates a link failure.
public final class InMemoryHCITransport: HCITransport {
    public let name: String
    public let incoming: AsyncThrowingStream<HCIPacket, any Error>
    private let link: Link
    private let side: Side

    private enum Side {
        case host
        case controller
    }

    /// The state both ends share.
    private final class Link: Sendable {
        struct State {
            var toHost: AsyncThrowingStream<HCIPacket, any Error>.Continuation
            var toController: AsyncThrowingStream<HCIPacket, any Error>.Continuation
            var closure: HCITransportError?
        }

        let state: Mutex<State>

        init(toHost: AsyncThrowingStream<HCIPacket, any Error>.Continuation,
             toController: AsyncThrowingStream<HCIPacket, any Error>.Continuation) {
            state = Mutex(State(toHost: toHost, toController: toController, closure: nil))
        }
    }

    private init(name: String, incoming: AsyncThrowingStream<HCIPacket, any Error>, link: Link, side: Side) {
        self.name = name
        self.incoming = incoming
        self.link = link
        self.side = side
    }

    /// A connected pair. `name` is the host end's name, as error messages show it; the
    /// controller end is named `name` + ` (controller side)`.
    public static func pair(name: String = "memory") -> (host: InMemoryHCITransport, controller: InMemoryHCITransport) {
        let (toHostStream, toHost) = AsyncThrowingStream.makeStream(of: HCIPacket.self, throwing: (any Error).self)
        let (toControllerStream, toController) = AsyncThrowingStream.makeStream(of: HCIPacket.self, throwing: (any Error).self)
        let link = Link(toHost: toHost, toController: toController)
        return (
            InMemoryHCITransport(name: name, incoming: toHostStream, link: link, side: .host),
            InMemoryHCITransport(name: name + " (controller side)", incoming: toControllerStream, link: link, side: .controller)
        )
    }

    /// Delivers `packet` to the other end; fails with `.closed` once the link is closed or dropped.
    public func send(_ packet: HCIPacket) async throws(HCITransportError) {
        let refusal: HCITransportError? = link.state.withLock { state in
            if let closure = state.closure { return closure }
            switch side {
            case .host: state.toController.yield(packet)
            case .controller: state.toHost.yield(packet)
            }
            return nil
        }
        if let refusal { throw refusal }
    }

    /// Closes the link: both ends' `incoming` finish normally. Idempotent.
    public func close() async {
        end(HCITransportError(.closed, "\(name): the in-memory link is closed"), failing: false)
    }

    /// Ends the link as a failure: both ends' `incoming` finish with `error`, the way a
    /// transport reports a dropped connection.
    public func drop(with error: HCITransportError) {
        end(error, failing: true)
    }

    private func end(_ error: HCITransportError, failing: Bool) {
        link.state.withLock { state in
            guard state.closure == nil else { return }
            state.closure = HCITransportError(.closed, "\(name): the in-memory link is closed")
            state.toHost.finish(throwing: failing ? error : nil)
            state.toController.finish(throwing: failing ? error : nil)
        }
    }
}
