/// Finds repeated keys among many entries without a hash table of them all: entries are
/// sorted by (hash, position), so equal keys end up next to each other with the first
/// occurrence leading. Sixteen bytes per entry, which matters at a million beacons.
enum Duplicates {
    /// Every entry whose key equals an earlier entry's, as (first occurrence, repeat),
    /// ordered by the repeat. `include` filters entries; `key` is asked only for those.
    static func find<Key: Hashable>(
        count: Int, include: (Int) -> Bool, key: (Int) -> Key
    ) -> [(first: Int, repeated: Int)] {
        var entries: [(hash: Int, index: Int)] = []
        entries.reserveCapacity(count)
        for index in 0..<count where include(index) {
            entries.append((key(index).hashValue, index))
        }
        entries.sort { $0.hash != $1.hash ? $0.hash < $1.hash : $0.index < $1.index }

        var found: [(first: Int, repeated: Int)] = []
        var runStart = 0
        while runStart < entries.count {
            var runEnd = runStart + 1
            while runEnd < entries.count, entries[runEnd].hash == entries[runStart].hash { runEnd += 1 }
            if runEnd - runStart > 1 {
                // Equal hashes: group by real equality (different keys may share a hash).
                var firsts: [(key: Key, index: Int)] = []
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
        found.sort { $0.repeated < $1.repeated }
        return found
    }
}
