/// Finds repeated keys among many entries without a hash table of them all. Entries are
/// put in order of their key's hash by a counting sort on its top bits, four bytes per
/// entry (their positions) and a table of counts; entries of one bucket are few, and
/// equal keys among them are found by their full hash, then the keys themselves. Memory
/// matters at a million beacons, and this runs while the whole fleet is held.
enum Duplicates {
    /// Every entry whose key equals an earlier entry's, as (first occurrence, repeat),
    /// ordered by the repeat. `include` filters entries; `key` is asked only for those.
    static func find<Key: Hashable>(
        count: Int, include: (Int) -> Bool, key: (Int) -> Key
    ) -> [(first: Int, repeated: Int)] {
        let hashes = (0..<count).map { include($0) ? hashHalf(key($0)) : 0 }
        return find(count: count, include: include, hash: { hashes[$0] }, key: key)
    }

    /// Half a key's hash, which is plenty to sort by: equal halves of different keys are
    /// told apart by comparing the keys themselves. Callers that have the keys at hand
    /// earlier (the resolver, while it writes each beacon) keep this instead of the key.
    static func hashHalf<Key: Hashable>(_ key: Key) -> UInt32 {
        UInt32(truncatingIfNeeded: UInt64(truncatingIfNeeded: key.hashValue) >> 32)
    }

    /// `find` with each entry's `hashHalf` given by `hash` (asked more than once per
    /// entry, so it should be a lookup); `key` is asked only for entries whose hashes meet.
    static func find<Key: Hashable>(
        count: Int, include: (Int) -> Bool, hash: (Int) -> UInt32, key: (Int) -> Key
    ) -> [(first: Int, repeated: Int)] {
        // Positions must fit in 32 bits; past four billion entries (far beyond any memory
        // this would need) a dictionary does the job.
        guard count <= Int(UInt32.max) else { return findWithDictionary(count: count, include: include, key: key) }
        // About one entry per bucket: up to 2^16 buckets (256 KB of counts), fewer for
        // fewer entries.
        let bucketBits = min(16, max(4, Int.bitWidth - count.leadingZeroBitCount))
        let shift = UInt32(32 - bucketBits)
        var ends = [UInt32](repeating: 0, count: 1 << bucketBits)
        for index in 0..<count where include(index) {
            ends[Int(hash(index) >> shift)] += 1
        }
        var total: UInt32 = 0
        for bucket in ends.indices {
            total += ends[bucket]
            ends[bucket] = total
        }
        // Filled from the back, so that each bucket ends up in ascending positions: the
        // first occurrence of a key leads its bucket.
        var order = [UInt32](repeating: 0, count: Int(total))
        for index in stride(from: count - 1, through: 0, by: -1) where include(index) {
            let bucket = Int(hash(index) >> shift)
            ends[bucket] -= 1
            order[Int(ends[bucket])] = UInt32(index)
        }
        // Now `ends[bucket]` is where each bucket starts.

        var found: [(first: Int, repeated: Int)] = []
        var entries: [(hash: UInt32, index: Int)] = []
        var firsts: [(key: Key, index: Int)] = []
        for bucket in ends.indices {
            let start = Int(ends[bucket])
            let end = bucket + 1 < ends.count ? Int(ends[bucket + 1]) : order.count
            guard end - start > 1 else { continue }
            entries.removeAll(keepingCapacity: true)
            for position in start..<end {
                let index = Int(order[position])
                entries.append((hash(index), index))
            }
            // Stable by position within equal hashes; buckets are small, and the sort's
            // insertion sort for short arrays does them in place.
            entries.sort { ($0.hash, $0.index) < ($1.hash, $1.index) }
            var runStart = 0
            while runStart < entries.count {
                var runEnd = runStart + 1
                while runEnd < entries.count, entries[runEnd].hash == entries[runStart].hash { runEnd += 1 }
                if runEnd - runStart > 1 {
                    firsts.removeAll(keepingCapacity: true)
                    for entry in entries[runStart..<runEnd] {
                        let entryKey = key(entry.index)
                        if let first = firsts.first(where: { $0.key == entryKey }) {
                            found.append((first.index, entry.index))
                        } else {
                            firsts.append((entryKey, entry.index))
                        }
                    }
                }
                runStart = runEnd
            }
        }
        found.sort { $0.repeated < $1.repeated }
        return found
    }

    private static func findWithDictionary<Key: Hashable>(
        count: Int, include: (Int) -> Bool, key: (Int) -> Key
    ) -> [(first: Int, repeated: Int)] {
        var firstIndex: [Key: Int] = [:]
        var found: [(first: Int, repeated: Int)] = []
        for index in 0..<count where include(index) {
            let entryKey = key(index)
            if let first = firstIndex[entryKey] {
                found.append((first, index))
            } else {
                firstIndex[entryKey] = index
            }
        }
        return found
    }
}
