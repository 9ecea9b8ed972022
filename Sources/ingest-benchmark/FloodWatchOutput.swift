/// What `verify --watch --format jsonl` printed in a flood run (docs/verify.md, "Output"),
/// counted: changes by state, loss events, the periodic `stats` lines and the `summary`.
struct FloodWatchOutput {
    var missing = 0
    var ok = 0
    /// `ok` changes from another state (a beacon back after a false `missing`).
    var okAgain = 0
    /// Changes to `unmonitored` (every usual receiver of a beacon offline).
    var unmonitored = 0
    var otherChanges = 0
    /// `receiver-offline` events: a box judged offline while every box publishes.
    var receiverOffline = 0
    var sightingsLostEvents = 0
    var inputLostEvents = 0
    var statsLines = 0
    /// The watch's clock when it first said that sightings were lost: a `sightings-lost`
    /// event, or a `stats` line with `lost_sightings` or `lost_messages` above 0.
    var firstLossSaidAt: Double?
    /// `lost_sightings`: dropped by the watch itself; `lost_messages`: messages that never
    /// reached it (numbered by beaconctl publishers), -1 where the watch does not say.
    var summary: (sightings: Int, lostSightings: Int, lostMessages: Int, time: Double)?

    init(_ text: String) {
        for line in text.split(separator: "\n") {
            guard let event = Self.string("event", in: line) else { continue }
            switch event {
            case "change":
                switch Self.string("state", in: line) {
                case "missing": missing += 1
                case "ok":
                    ok += 1
                    if Self.string("previous", in: line) != nil { okAgain += 1 }
                case "unmonitored": unmonitored += 1
                default: otherChanges += 1
                }
            case "sightings-lost":
                sightingsLostEvents += 1
                if firstLossSaidAt == nil { firstLossSaidAt = Self.number("time", in: line) }
            case "input-lost":
                inputLostEvents += 1
            case "receiver-offline":
                receiverOffline += 1
            case "stats":
                statsLines += 1
                let lost = (Self.number("lost_sightings", in: line) ?? 0) + (Self.number("lost_messages", in: line) ?? 0)
                if firstLossSaidAt == nil, lost > 0 { firstLossSaidAt = Self.number("time", in: line) }
            case "summary":
                summary = (
                    Int(exactly: Self.number("sightings", in: line) ?? -1) ?? -1,
                    Int(exactly: Self.number("lost_sightings", in: line) ?? -1) ?? -1,
                    Int(exactly: Self.number("lost_messages", in: line) ?? -1) ?? -1,
                    Self.number("time", in: line) ?? 0
                )
            default:
                break
            }
        }
    }

    /// The value of the first `"key":"…"` of a line (the watch writes keys without spaces).
    static func string(_ key: String, in line: Substring) -> String? {
        guard let range = line.firstRange(of: "\"\(key)\":\"") else { return nil }
        let rest = line[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    /// The value of the first `"key":NUMBER` of a line.
    static func number(_ key: String, in line: Substring) -> Double? {
        guard let range = line.firstRange(of: "\"\(key)\":") else { return nil }
        let digits = line[range.upperBound...].prefix { $0.isNumber || $0 == "." || $0 == "-" || $0 == "e" || $0 == "E" || $0 == "+" }
        guard let value = Double(digits), value.isFinite, abs(value) < 1e15 else { return nil }
        return value
    }
}
