import BeaconCore

/// The sightings of a `BrokerSightingFeed`, in arrival order. One reader.
public struct BrokerSightings: AsyncSequence, SightingBatchSequence, Sendable {
    public typealias Element = Sighting
    let channel: BatchChannel<Sighting>
    /// The telemetry readings of the same messages (gateways' battery fields, beaconctl's
    /// telemetry lines), put as they are decoded.
    public let telemetry: TelemetryInbox

    init(channel: BatchChannel<Sighting>, telemetry: TelemetryInbox = TelemetryInbox()) {
        self.channel = channel
        self.telemetry = telemetry
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(channel: channel)
    }

    package func makeBatchIterator() -> any SightingBatchIterator {
        makeAsyncIterator()
    }

    public struct AsyncIterator: AsyncIteratorProtocol, SightingBatchIterator {
        let channel: BatchChannel<Sighting>
        private var batch: [Sighting] = []
        private var index = 0

        init(channel: BatchChannel<Sighting>) {
            self.channel = channel
        }

        public mutating func next() async throws -> Sighting? {
            while index == batch.count {
                guard let next = try await channel.next() else { return nil }
                batch = next
                index = 0
            }
            defer { index += 1 }
            return batch[index]
        }

        package mutating func nextBatch(into sightings: inout [Sighting]) async throws -> Bool {
            if index < batch.count {
                sightings = Array(batch[index...])
                index = batch.count
                return true
            }
            guard let next = try await channel.next() else { return false }
            sightings = next
            return true
        }
    }
}
