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
