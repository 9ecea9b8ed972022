import BeaconCore

/// A sequence of sightings that decodes them in batches (a recording read a chunk at a
/// time) and can hand them over that way: a replay then takes a batch per `await` instead
/// of one sighting, which at millions of sightings is most of the cost.
package protocol SightingBatchSequence {
    func makeBatchIterator() -> any SightingBatchIterator
}

package protocol SightingBatchIterator {
    /// Replaces `sightings` with the next ones in order, at least one, and returns true; false
    /// at the end. An error comes after every sighting decoded before it has been handed over,
    /// exactly as the sequence's own iterator gives them.
    mutating func nextBatch(into sightings: inout [Sighting]) async throws -> Bool
}

/// A batch iterator that also hands its sightings out one by one, as an `AsyncIterator`
/// must: from the batch at hand, decoding the next one into the same storage once it is
/// all out.
protocol BatchHandingIterator: SightingBatchIterator {
    /// Sightings decoded ahead, handed out from `batchIndex`.
    var batch: [Sighting] { get set }
    var batchIndex: Int { get set }
}

extension BatchHandingIterator {
    /// The next sighting of the batch at hand, else the first of the next batch; `nil` at
    /// the end.
    mutating func nextFromBatches() async throws -> Sighting? {
        if batchIndex < batch.count {
            defer { batchIndex += 1 }
            return batch[batchIndex]
        }
        // Moved out while the next batch is decoded into it, so that its storage is
        // uniquely referenced and reused.
        var taken: [Sighting] = []
        swap(&taken, &batch)
        batchIndex = 1
        guard try await nextBatch(into: &taken) else { return nil }
        swap(&taken, &batch)
        return batch[0]
    }
}
