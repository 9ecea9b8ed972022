#if os(Linux)
import Dispatch
import HCI
import Synchronization

/// Serves a `ScriptedController` on a TCP port of 127.0.0.1, speaking H4 as RootCanal
/// does, so that code which opens its controller by a transport spec (the command line)
/// can be tested against it: `beaconctl scan --hci \(endpoint.spec)`.
///
/// Everything the controller sends, and everything `inject(_:)` adds, reaches the client in
/// the order it was handed over: one serial queue writes it all (blocking writes, on a
/// dispatch thread rather than Swift's cooperative pool).
public final class TCPControllerEndpoint: Sendable {
    public let port: UInt16
    private let server: TCPLoopbackServer
    private let writes = DispatchQueue(label: "beaconctl.test.tcp-controller.writes")
    private let connection = Connection()
    private let tasks = Mutex<[Task<Void, Never>]>([])

    /// The transport spec that connects to this endpoint.
    public var spec: String { "tcp-client:127.0.0.1:\(port)" }

    /// Listens at once; the first client that connects is served until it or `close()` ends it.
    public init(serving controller: ScriptedController) throws {
        server = try TCPLoopbackServer()
        port = server.port
        // Nothing is written before a client is there to read it.
        writes.suspend()
        let (commands, commandSink) = AsyncStream.makeStream(of: HCIPacket.self)
        let accepting = Task { [server, writes, connection] in
            guard let client = try? await server.accept() else {
                writes.resume()
                return
            }
            connection.client.withLock { $0 = client }
            writes.resume()
            // Used on the reading thread only; the lock makes that visible to the compiler.
            let parser = Mutex(H4StreamParser())
            do {
                try client.readContinuously({ bytes in
                    for packet in parser.withLock({ $0.parse(bytes).packets }) { commandSink.yield(packet) }
                }, ended: { commandSink.finish() })
            } catch {
                commandSink.finish()
            }
        }
        // Commands from the client go to the controller in order.
        let delivering = Task {
            for await packet in commands {
                try? await controller.hostEnd.send(packet)
            }
            await controller.hostEnd.close()
        }
        // The controller's answers and events go back to the client.
        let answering = Task { [weak self] in
            do {
                for try await packet in controller.hostEnd.incoming { self?.inject([packet]) }
            } catch {
                self?.close()
            }
        }
        tasks.withLock { $0 = [accepting, delivering, answering] }
    }

    /// Writes `packets` to the client after everything handed over before them.
    public func inject(_ packets: [HCIPacket]) {
        let bytes = packets.flatMap(\.h4Bytes)
        writes.async { [connection] in
            try? connection.client.withLock { $0 }?.write(bytes)
        }
    }

    /// Ends the connection, as a controller that goes away does.
    public func close() {
        connection.client.withLock { $0 }?.close()
    }

    deinit {
        tasks.withLock { tasks in tasks.forEach { $0.cancel() } }
        connection.client.withLock { $0 }?.close()
    }

    /// The accepted client, once there is one; shared with the tasks and the write queue.
    private final class Connection: Sendable {
        let client = Mutex<H4TestPeer?>(nil)
    }
}
#endif
