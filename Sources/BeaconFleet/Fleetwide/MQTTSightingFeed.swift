import BeaconCore
import BeaconMQTT
import Dispatch
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let systemWrite = Darwin.write
#endif

/// The sightings every receiver publishes under a prefix, as a JSON-lines stream that the
/// readers of recordings read like a pipe (`readablePath`): `verify`, `scan` and `monitor`
/// take `--input mqtt://…` through the same code as `--input file`.
///
/// Each message's lines are checked before they are passed on: a malformed line from some
/// client on the broker is skipped and counted (a warning names the topic), instead of
/// ending an audit that listens to many. Backpressure all the way: the pipe fills, the pump
/// waits, the client's buffer fills, its network thread waits, the broker holds QoS 1
/// messages.
///
/// The receivers' retained status topics (`PREFIX/status/RECEIVER`: `online`, and `offline`
/// when a box stops or the broker publishes its last will) are read too, and passed on as
/// `receiverStatuses` (`verify --watch` follows each receiver with them).
public final class MQTTSightingFeed: Sendable {
    public let client: MQTTClient
    /// What each receiver says of itself, as it arrives; bounded (the newest kept), so that
    /// a command that does not read it loses nothing else.
    public let receiverStatuses: AsyncStream<ReceiverStatusChange>
    /// Statuses kept for a reader that falls behind: far more than a chain's boxes restarting at once.
    static let statusQueueLimit = 4_096
    /// `/dev/fd/N`: the pipe's read end, for `SightingSources.open(path:)`.
    public let readablePath: String
    private let readEnd: Int32
    private let writeEnd: Int32
    private let writer = DispatchQueue(label: "beaconctl.mqtt.feed")
    private let pump: Task<Void, Never>
    /// Set by `stop()`: a write waiting for the reader gives up. The reader may have stopped
    /// reading for good (the command ended), and a blocked write would hold `stop()` forever.
    private let stopping = StopFlag()

    public init(client: MQTTClient, topics: MQTTTopics, logger: Logger) throws(MQTTError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw .library("cannot create a pipe for the broker's sightings: \(String(cString: strerror(errno)))")
        }
        readEnd = ends[0]
        writeEnd = ends[1]
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        // Non-blocking: a full pipe is waited on with poll(), which can notice `stopping`.
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
        readablePath = "/dev/fd/\(readEnd)"
        self.client = client
        let stopping = self.stopping
        client.subscribe(topics.allSightings)
        client.subscribe(topics.allStatuses)
        let (receiverStatuses, statusChanges) = AsyncStream.makeStream(
            of: ReceiverStatusChange.self, bufferingPolicy: .bufferingNewest(Self.statusQueueLimit))
        self.receiverStatuses = receiverStatuses
        let writeEnd = self.writeEnd
        let writer = self.writer
        pump = Task {
            var malformed = 0
            var malformedStatuses = 0
            for await message in client.messages {
                client.messageConsumed()
                if topics.receiver(ofStatus: message.topic) != nil {
                    switch BeaconCtlGatewayDecoder.read(topic: message.topic, payload: message.payload, base: topics.prefix, arrivalTime: 0) {
                    case .receiverStatus(let receiver, let online):
                        statusChanges.yield(ReceiverStatusChange(receiver: receiver, online: online))
                    case .malformed(let reason):
                        malformedStatuses += 1
                        if malformedStatuses <= 3 || malformedStatuses % 1000 == 0 {
                            logger.warning("skipped a receiver status on \(message.topic) (\(malformedStatuses) so far): \(reason)")
                        }
                    case .sightings, .withoutIdentity, .ignored:
                        break
                    }
                    continue
                }
                var passed: [UInt8] = []
                for (index, line) in message.payload.split(separator: 0x0A).enumerated() {
                    do {
                        guard try SightingJSONLines.decode(line: line, lineNumber: index + 1, source: message.topic) != nil else { continue }
                        passed += line
                        passed.append(0x0A)
                    } catch {
                        malformed += 1
                        // The first few, then every thousandth: a broken publisher must not flood the log.
                        if malformed <= 3 || malformed % 1000 == 0 {
                            logger.warning("skipped a malformed sighting from the broker (\(malformed) so far): \(error)")
                        }
                    }
                }
                guard !passed.isEmpty else { continue }
                let written = await Self.write(passed, to: writeEnd, on: writer, unless: stopping)
                if !written { break }
            }
            statusChanges.finish()
            close(writeEnd)
        }
        do {
            try client.start()
        } catch {
            pump.cancel()
            throw error
        }
    }

    /// Writes all of `bytes` on `queue` (waiting for a full pipe there, not on the pool);
    /// `false` when the reader is gone or `stopping` was set while waiting.
    private static func write(_ bytes: [UInt8], to descriptor: Int32, on queue: DispatchQueue, unless stopping: StopFlag) async -> Bool {
        await withCheckedContinuation { continuation in
            queue.async {
                var offset = 0
                while offset < bytes.count {
                    let count = bytes[offset...].withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
                    if count >= 0 {
                        offset += count
                        continue
                    }
                    if errno == EINTR { continue }
                    guard errno == EAGAIN || errno == EWOULDBLOCK else {
                        continuation.resume(returning: false)
                        return
                    }
                    // Full: wait for room, looking at `stopping` every 100 ms.
                    var waiting = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&waiting, 1, 100)
                    if stopping.isSet {
                        continuation.resume(returning: false)
                        return
                    }
                }
                continuation.resume(returning: true)
            }
        }
    }

    /// Stops the subscription; the stream ends.
    public func stop() async {
        stopping.set()
        await client.stop()
        await pump.value
        close(readEnd)
    }
}

/// A flag one thread sets and another polls.
final class StopFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
