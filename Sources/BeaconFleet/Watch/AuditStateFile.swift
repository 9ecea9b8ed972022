import BeaconCore
import Dispatch
import FleetManifest
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `verify --watch --state FILE`: each manifest beacon's state, kept in a file so that a
/// restarted watch starts from the states it had and reports only what changed since
/// (docs/verify.md, "Restarting"). One JSON object per line: a header, then a beacon each:
///
///     {"state_file":"beaconctl-watch","version":1,"written_at":1764141600.5}
///     {"beacon":"door","state":"ok"}
///     {"beacon":"till","state":"unmonitored"}
///     {"beacon":"till","receiver":"store-12"}
///
/// An `unmonitored` beacon keeps the receivers that heard it, a line each after its state: a
/// restarted watch that finds them all still offline keeps it `unmonitored` instead of
/// judging it `missing` (files from before, without them, are read as they are). A beacon
/// with a battery history keeps its daily medians in its state line, as text that older
/// readers skip: `{"beacon":"door","state":"ok","battery_history":"20400:2710,20401:2702"}`
/// (Unix day, then millivolts or percent in the manifest threshold's unit; docs/health.md).
/// Written after every change (a burst of changes is one write) and at the end, always
/// whole and atomically: a temporary file beside it, flushed to disk, renamed over it, so a
/// watch killed at any moment leaves the previous file or the new one, never half of one.
/// The writing happens on a queue of its own, never on the watch's task.
public final class AuditStateFile: AuditEventSink, Sendable {
    public let path: String
    private struct State {
        var beacons: [String: AuditState] = [:]
        /// The receivers of the `unmonitored` beacons, by beacon id.
        var receivers: [String: [String]] = [:]
        /// Each beacon's battery history, by beacon id.
        var batteries: [String: [BatteryForecast.DailyMedian]] = [:]
        var writePending = false
        var lastError: String?
        var writes = 0
    }

    private let state: Mutex<State>
    private let queue = DispatchQueue(label: "beaconctl.watch.state")
    private let unixTime: @Sendable () -> Double

    /// Starts from `restored` (what `read` found), so that beacons not heard again keep it.
    public init(
        path: String, restored: [String: AuditState] = [:], restoredReceivers: [String: [String]] = [:],
        restoredBatteries: [String: [BatteryForecast.DailyMedian]] = [:],
        unixTime: @escaping @Sendable () -> Double = WallClock.unixTime
    ) {
        self.path = path
        self.state = Mutex(State(beacons: restored, receivers: restoredReceivers, batteries: restoredBatteries))
        self.unixTime = unixTime
    }

    /// What `read` found.
    public struct Contents: Sendable {
        public var beacons: [String: AuditState]
        public var writtenAt: Double
        public var receivers: [String: [String]]
        public var batteries: [String: [BatteryForecast.DailyMedian]]
    }

    /// The beacons' states in `path`, when they were written, the receivers of the
    /// `unmonitored` ones and the battery histories; `nil` when there is no file. Throws a
    /// message naming the line when the file is not a state file.
    public static func read(_ path: String) throws(AuditStateFileError) -> Contents? {
        guard let file = fopen(path, "rb") else {
            if errno == ENOENT { return nil }
            throw AuditStateFileError("\(path): cannot read the watch's state: \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if count <= 0 { break }
            bytes += chunk[0..<count]
            // A manifest's beacons fit in far less; anything larger is not ours.
            guard bytes.count <= 64 << 20 else { throw AuditStateFileError("\(path): larger than 64 MB: not a watch's state file") }
        }
        var beacons: [String: AuditState] = [:]
        var receivers: [String: [String]] = [:]
        var batteries: [String: [BatteryForecast.DailyMedian]] = [:]
        var writtenAt: Double?
        for (offset, line) in bytes.split(separator: 0x0A).enumerated() {
            let members: [(key: String, value: SightingJSONObjectReader.Value)]
            do {
                members = try SightingJSONObjectReader.members(of: Array(line))
            } catch {
                throw AuditStateFileError("\(path):\(offset + 1): \(error.reason); not a watch's state file (delete it to start afresh)")
            }
            func string(_ key: String) -> String? {
                guard case .string(let value)? = members.first(where: { $0.key == key })?.value else { return nil }
                return value
            }
            if offset == 0 {
                guard string("state_file") == "beaconctl-watch",
                      case .number(let text)? = members.first(where: { $0.key == "written_at" })?.value, let time = Double(text), time.isFinite
                else {
                    throw AuditStateFileError("\(path):1: not a watch's state file (no beaconctl-watch header); delete it to start afresh")
                }
                writtenAt = time
                continue
            }
            if let beacon = string("beacon"), let receiver = string("receiver") {
                receivers[beacon, default: []].append(receiver)
                continue
            }
            guard let beacon = string("beacon"), let name = string("state"), let state = AuditState(rawValue: name),
                  AuditState.beaconStates.contains(state)
            else {
                let states = AuditState.beaconStates.map(\.rawValue).joined(separator: ", ")
                throw AuditStateFileError("\(path):\(offset + 1): expected {\"beacon\":…,\"state\":…} with a beacon's state (\(states))")
            }
            beacons[beacon] = state
            if let history = string("battery_history") {
                guard let days = Self.batteryHistory(history) else {
                    throw AuditStateFileError(
                        "\(path):\(offset + 1): \"battery_history\" must be day:value pairs separated by commas; delete the member to start the history afresh")
                }
                batteries[beacon] = days
            }
        }
        guard let writtenAt else { throw AuditStateFileError("\(path): empty; not a watch's state file (delete it to start afresh)") }
        return Contents(beacons: beacons, writtenAt: writtenAt, receivers: receivers, batteries: batteries)
    }

    /// `20400:2710,20401:2702`, read with checks; `nil` when any pair is not two integers.
    static func batteryHistory(_ text: String) -> [BatteryForecast.DailyMedian]? {
        guard !text.isEmpty else { return [] }
        var days: [BatteryForecast.DailyMedian] = []
        for pair in text.split(separator: ",", omittingEmptySubsequences: false).prefix(BatteryHistory.maximumDays + 1) {
            let parts = pair.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let day = Int(parts[0]), let value = Int(parts[1]), (0...100_000).contains(value) else { return nil }
            days.append(.init(day: day, value: value))
        }
        return days
    }

    static func batteryHistoryText(_ days: [BatteryForecast.DailyMedian]) -> String {
        days.map { "\($0.day):\($0.value)" }.joined(separator: ",")
    }

    public func deliver(_ event: AuditEvent) {
        guard let beacon = event.beaconID else { return }
        let schedule = state.withLock { state -> Bool in
            state.beacons[beacon] = event.state
            state.receivers[beacon] = event.state == .unmonitored ? event.receivers.map(\.receiver) : nil
            defer { state.writePending = true }
            return !state.writePending
        }
        if schedule { queue.async { self.writeLatest() } }
    }

    /// A status report: the battery histories taken, written when a beacon's history gained
    /// a day (a reading a minute would otherwise rewrite the file every minute); the final
    /// report is written once more, whatever is pending.
    public func deliver(_ report: AuditStatusReport) {
        let schedule = state.withLock { state -> Bool in
            var gainedDay = false
            for standing in report.batteries where !standing.history.isEmpty {
                let id = standing.beacon.beaconID
                if state.batteries[id]?.last?.day != standing.history.last?.day { gainedDay = true }
                state.batteries[id] = standing.history
            }
            guard report.end != nil || gainedDay else { return false }
            defer { state.writePending = true }
            return true
        }
        if schedule { queue.async { self.writeLatest() } }
    }

    /// Waits for every write asked for so far; the last error, if a write failed.
    public func flush() async -> String? {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume() }
        }
        return state.withLock { $0.lastError }
    }

    /// Writes taken so far (for tests).
    public var writes: Int { state.withLock { $0.writes } }

    private func writeLatest() {
        let latest = state.withLock {
            state -> (beacons: [String: AuditState], receivers: [String: [String]], batteries: [String: [BatteryForecast.DailyMedian]])? in
            guard state.writePending else { return nil }
            state.writePending = false
            return (state.beacons, state.receivers, state.batteries)
        }
        guard let (beacons, receivers, batteries) = latest else { return }
        var text = "{\"state_file\":\"beaconctl-watch\",\"version\":1,\"written_at\":\(SightingJSONLines.timeText(unixTime()))}\n"
        for (beacon, state) in beacons.sorted(by: { $0.key < $1.key }) {
            let id = JSONText.stringLiteral(beacon)
            let history = batteries[beacon].map { ",\"battery_history\":\"\(Self.batteryHistoryText($0))\"" } ?? ""
            text += "{\"beacon\":\(id),\"state\":\"\(state.rawValue)\"\(history)}\n"
            for receiver in state == .unmonitored ? receivers[beacon] ?? [] : [] {
                text += "{\"beacon\":\(id),\"receiver\":\(JSONText.stringLiteral(receiver))}\n"
            }
        }
        let failure = Self.writeAtomically(Array(text.utf8), to: path)
        state.withLock {
            $0.lastError = failure
            $0.writes += 1
        }
    }

    /// `bytes` into `path` whole or not at all, through the one atomic write every file
    /// beaconctl writes goes through (a temporary file beside it, flushed, renamed, the
    /// folder flushed); the reason when it could not be written.
    private static func writeAtomically(_ bytes: [UInt8], to path: String) -> String? {
        do {
            try ManifestFileReplacement.write(bytes, to: path)
            return nil
        } catch {
            return "the watch's state: \(error)"
        }
    }
}

public struct AuditStateFileError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
