/// How many beacons each host is assigned, and the smallest advertising-set budget any
/// manifest naming it declares: counted while beacons are resolved, checked once all files
/// are read. Every beacon meant for a host counts, errors or not: fixing them will not
/// make the host's controller any larger.
struct HostLoads {
    /// 24 bytes a host: counts and budgets fit 32 bits (a budget beyond is no limit a
    /// count could reach).
    struct Load {
        var host: String
        var count: Int32 = 0
        var budget = Int32.max
        var isOverloaded: Bool { count > budget }
    }

    private(set) var loads: [Load] = []
    private var slots: [String: Int32] = [:]
    /// The beacons of a venue usually share their host, so the previous host's slot is
    /// tried first: most beacons cost a string comparison instead of a hash and a lookup.
    private var previous: (host: String, slot: Int)?

    /// The slot of `host` in `loads`, added when new.
    mutating func slot(of host: String) -> Int {
        if let previous, previous.host == host { return previous.slot }
        let found: Int
        if let known = slots[host] {
            found = Int(known)
        } else {
            found = loads.count
            slots[host] = Int32(truncatingIfNeeded: found)
            loads.append(Load(host: host))
        }
        previous = (host, found)
        return found
    }

    /// Counts one beacon for `host`, under a manifest declaring `budget` sets per host.
    /// Manifests sharing a host may declare different budgets: the smallest wins, the
    /// controller cannot do more than its tightest description says.
    mutating func count(host: String, budget: Int) {
        let hostSlot = slot(of: host)
        loads[hostSlot].count &+= 1
        loads[hostSlot].budget = min(loads[hostSlot].budget, Int32(clamping: budget))
    }
}
