/// Finds repeated keys among many entries without a hash table of them all. Each entry
/// becomes one 64-bit word, its key's hash in the high half and its position in the low
/// half; sorted, equal keys end up next to each other with the first occurrence leading.
/// Eight bytes per entry, which matters at a million beacons.
enum Duplicates {
    /// Every entry whose key equals an earlier entry's, as (first occurrence, repeat),
    /// ordered by the repeat. `include` filters entries; `key` is asked only for those.
    static func find<Key: Hashable>(
        count: Int, include: (Int) -> Bool, key: (Int) -> Key
    ) -> [(first: Int, repeated: Int)] {
        find(count: count, include: include, hash: { hashHalf(key($0)) }, key: key)
    }

    /// Half a key's hash, which is plenty to sort by: equal halves of different keys are
    /// told apart by comparing the keys themselves. Callers that have the keys at hand
    /// earlier (the resolver, while it writes each beacon) keep this instead of the key.
    static func hashHalf<Key: Hashable>(_ key: Key) -> UInt32 {
        UInt32(truncatingIfNeeded: UInt64(truncatingIfNeeded: key.hashValue) >> 32)
    }

    /// `find` with each entry's `hashHalf` given by `hash`; `key` is asked only for
    /// entries whose hashes meet.
    static func find<Key: Hashable>(
        count: Int, include: (Int) -> Bool, hash: (Int) -> UInt32, key: (Int) -> Key
    ) -> [(first: Int, repeated: Int)] {
        // Positions must fit the low half of a word; past four billion entries (far beyond
        // any memory this would need) a dictionary does the job.
        guard count <= Int(UInt32.max) else { return findWithDictionary(count: count, include: include, key: key) }
        var words: [UInt64] = []
        words.reserveCapacity(count)
        for index in 0..<count where include(index) {
            words.append(UInt64(hash(index)) << 32 | UInt64(index))
        }
        sortByHash(&words)

        var found: [(first: Int, repeated: Int)] = []
        var runStart = 0
        while runStart < words.count {
            var runEnd = runStart + 1
            while runEnd < words.count, words[runEnd] >> 32 == words[runStart] >> 32 { runEnd += 1 }
            if runEnd - runStart > 1 {
                var firsts: [(key: Key, index: Int)] = []
                for word in words[runStart..<runEnd] {
                    let index = Int(word & 0xFFFF_FFFF)
                    let entryKey = key(index)
                    if let first = firsts.first(where: { $0.key == entryKey }) {
                        found.append((first.index, index))
                    } else {
                        firsts.append((entryKey, index))
                    }
                }
            }
            runStart = runEnd
        }
        found.sort { $0.repeated < $1.repeated }
        return found
    }

    /// Sorts the words by their high half (the hash), keeping positions in order among
    /// equal hashes: a least-significant-digit radix sort, three stable passes of 11, 11
    /// and 10 bits, linear where a comparison sort is n log n. Digits of 11 bits keep the
    /// counts in 16 KB, within the first-level cache, where 16-bit digits needed half a
    /// megabyte of counts touched at random. Small inputs use the standard sort.
    static func sortByHash(_ words: inout [UInt64]) {
        guard words.count > 4096 else {
            words.sort()
            return
        }
        var buffer = [UInt64](repeating: 0, count: words.count)
        var counts = [Int](repeating: 0, count: 1 << 11 + 1)
        for (shift, mask): (UInt64, UInt64) in [(32, 0x7FF), (43, 0x7FF), (54, 0x3FF)] {
            for index in counts.indices { counts[index] = 0 }
            for word in words { counts[Int((word >> shift) & mask) + 1] += 1 }
            for digit in 1..<counts.count { counts[digit] += counts[digit - 1] }
            for word in words {
                let digit = Int((word >> shift) & mask)
                buffer[counts[digit]] = word
                counts[digit] += 1
            }
            swap(&words, &buffer)
        }
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
