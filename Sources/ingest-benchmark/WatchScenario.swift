import BeaconCore
import BeaconFleet

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A chain's air for `--watch`: `stores` stores of 20 beacons, one receiver per store
/// (`store-N`), each beacon heard once a second for 60 s in Unix time, every store's
/// sightings interleaved as a broker would deliver them. Ten beacons fall silent half-way
/// and one beacon's clone appears at a second address, so the watch has changes to report
/// besides the first states; with a 10 s silence the recording ends with exactly ten
/// beacons missing and one duplicate (`check`).
///
/// The one-shot pass (`--oneshot-beacons`) reads the same kind of recording, 10 s of it,
/// through `BeaconVerifier`.
enum WatchScenario {
    static let uuid = IngestScenario.uuid
    static let beaconsPerStore = 20
    static let seconds = 60
    static let silence = Duration.seconds(10)
    static let startUnixSeconds: Int64 = 1_700_000_000
    /// Stores whose beacon 2 stops sending at second `seconds / 2`.
    static let silentStores = 1...10
    static let silentMinor: UInt16 = 2
    /// The store whose beacon 1 is cloned (second address) from second 20 on.
    static let clonedStore = 0
    static let cloneFromSecond = 20

    static func beaconCount(stores: Int) -> Int { stores * beaconsPerStore }

    static func identity(store: Int, minor: UInt16) -> BeaconIdentity {
        BeaconIdentity(uuid: uuid, major: UInt16(store + 1), minor: minor)
    }

    static func plan(stores: Int) throws -> VerificationPlan {
        var expected: [ExpectedBeacon] = []
        expected.reserveCapacity(beaconCount(stores: stores))
        for store in 0..<stores {
            for minor in 1...UInt16(beaconsPerStore) {
                expected.append(ExpectedBeacon(
                    beaconID: "s\(store)-b\(minor)", venueID: "store-\(store)", identity: identity(store: store, minor: minor),
                    measuredPower: .calibrated(-59), intervalMilliseconds: 1000))
            }
        }
        return try VerificationPlan(expected: expected, fleetUUIDs: [uuid])
    }

    /// Beacon `index`'s device address: C4:5B:BE and the index in three bytes; its clone's
    /// starts C4:5B:BF.
    static func address(_ index: Int, clone: Bool = false) -> BluetoothAddress {
        BluetoothAddress(truncating: (clone ? 0xC45B_BF00_0000 : 0xC45B_BE00_0000) | UInt64(truncatingIfNeeded: index) & 0xFF_FFFF)
    }

    /// Writes the recording: `seconds` seconds of every beacon once a second, the beacons
    /// spread evenly over each second. With `receiver`, every sighting names that one
    /// receiver instead of its store's; the last `unheard` beacons are never heard. Returns
    /// the number of sightings, or `nil` when the file cannot be written.
    static func write(stores: Int, seconds: Int = seconds, receiver: String? = nil, unheard: Int = 0, to path: String) -> Int? {
        guard let file = fopen(path, "wb") else { return nil }
        defer { fclose(file) }
        let count = beaconCount(stores: stores)
        // Each line up to its time is the same every second: made once.
        func prefix(_ index: Int, clone: Bool) -> [UInt8] {
            let store = index / beaconsPerStore
            let minor = index % beaconsPerStore + 1
            return Array(("{\"uuid\":\"\(uuid)\",\"major\":\(store + 1),\"minor\":\(minor),\"measured_power\":-59,"
                + "\"address\":\"\(address(index, clone: clone))\",\"address_random\":false,\"rssi\":-\(60 + index % 30),\"time\":").utf8)
        }
        let prefixes = (0..<count).map { prefix($0, clone: false) }
        let clonePrefix = prefix(clonedStore * beaconsPerStore, clone: true)
        let suffixes = (0..<stores).map { Array(",\"clock\":\"unix\",\"receiver\":\"\(receiver ?? "store-\($0)")\"}\n".utf8) }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20 + 4096)
        func flush() -> Bool {
            defer { buffer.removeAll(keepingCapacity: true) }
            return buffer.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) } == buffer.count
        }
        var written = 0
        for second in 0..<seconds {
            for index in 0..<max(0, count - unheard) {
                let store = index / beaconsPerStore
                let minor = UInt16(index % beaconsPerStore + 1)
                if minor == silentMinor, silentStores.contains(store), second >= seconds / 2 { continue }
                let microseconds = Int64(index) * 1_000_000 / Int64(count)
                buffer += prefixes[index]
                appendTime(second: second, microseconds: microseconds, to: &buffer)
                buffer += suffixes[store]
                written += 1
                if store == clonedStore, minor == 1, second >= cloneFromSecond {
                    buffer += clonePrefix
                    appendTime(second: second, microseconds: microseconds + 1, to: &buffer)
                    buffer += suffixes[store]
                    written += 1
                }
                if buffer.count >= 1 << 20, !flush() { return nil }
            }
        }
        return flush() ? written : nil
    }

    /// `1700000012.345678`: Unix seconds with six decimals.
    private static func appendTime(second: Int, microseconds: Int64, to buffer: inout [UInt8]) {
        buffer += Array(String(startUnixSeconds + Int64(second)).utf8)
        buffer.append(UInt8(ascii: "."))
        var digits = [UInt8](repeating: UInt8(ascii: "0"), count: 6)
        var value = microseconds
        for position in (0..<6).reversed() {
            digits[position] = UInt8(ascii: "0") + UInt8(value % 10)
            value /= 10
        }
        buffer += digits
    }

    /// What the watch must end with: ten beacons missing, one duplicate, every other ok.
    static func check(_ statistics: AuditStatistics, stores: Int) -> Bool {
        let silent = silentStores.count { $0 < stores }
        let cloned = clonedStore < stores ? 1 : 0
        return statistics.beaconStates[.missing] == silent && statistics.beaconStates[.duplicate] == cloned
            && statistics.beaconStates[.ok] == beaconCount(stores: stores) - silent - cloned && statistics.unknownBeacons == 0
    }
}

/// The watch's output, encoded as `verify --watch --format jsonl` writes it and counted
/// (not written: the benchmark measures the watch, not a terminal).
final class CountingAuditSink: AuditEventSink, @unchecked Sendable {
    // Only the watch's one task delivers: no lock needed.
    private(set) var events = 0
    private(set) var bytes = 0

    func deliver(_ event: AuditEvent) {
        events += 1
        bytes += AuditJSONLines.encode(event).utf8.count + 1
    }

    func deliver(_ report: AuditStatusReport) {
        bytes += AuditJSONLines.encode(report).utf8.count + 1
    }

    func deliver(_ event: AuditReceiverEvent) {
        events += 1
        bytes += AuditJSONLines.encode(event).utf8.count + 1
    }
}

/// What `verify --watch --input FILE --silence 10` does with the recording: opens it, and
/// replays it through `AuditWatch` on its own clock. The sighting count, or `nil` when the
/// watch failed or ended in other states than the scenario's.
func watchPass(_ path: String, stores: Int) async -> Int? {
    do {
        // Receivers followed, as a watch of a broker follows them (the costlier case).
        let watch = AuditWatch(
            plan: try WatchScenario.plan(stores: stores), configuration: .init(silence: WatchScenario.silence, followsReceivers: true))
        let sink = CountingAuditSink()
        let report: AuditStatusReport
        switch try await SightingRecording.open(path: path) {
        case .capture(let capture):
            report = try await watch.run(capture, timing: .replay, sinks: [sink])
        case .jsonLines(let lines):
            report = try await watch.run(lines, timing: .replay, sinks: [sink])
        case .broker(let sightings):
            report = try await watch.run(sightings, timing: .replay, sinks: [sink])
        }
        guard WatchScenario.check(report.statistics, stores: stores) else {
            FileHandleWriter.standardError("ingest-benchmark: \(path): the watch ended with \(AuditJSONLines.encode(report))\n")
            return nil
        }
        return report.statistics.sightings
    } catch {
        FileHandleWriter.standardError("ingest-benchmark: \(path): \(error)\n")
        return nil
    }
}

/// The one-shot pass over a recording of `beacons` beacons (`verify --input FILE` with a
/// manifest of them): the sightings read, or `nil`.
func oneShotPass(_ path: String, beacons: Int) async -> Int? {
    let stores = (beacons + WatchScenario.beaconsPerStore - 1) / WatchScenario.beaconsPerStore
    return await replayedPass(path) { try WatchScenario.plan(stores: stores) }
}
