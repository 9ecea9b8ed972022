import BeaconCore
import BeaconFleet

/// libFuzzer entry: a sighting stream through region monitoring and the periodic-report
/// schedule of `monitor`, with the clock as hostile as the input likes (jumps of years,
/// time going backwards, NaN, tiny periods). Checks that every step ends with a bounded
/// number of reports and that events come out in time order.
///
/// Bytes 0–1 pick the state and ranging periods; then each 10 bytes are one step:
///   0     identity (low 2 bits) and whether it is a sighting (bit 2) or a clock tick
///   1     RSSI (int8)
///   2–9   the time: a Double's bit pattern when byte 0 bit 7 is set, else a step forward of
///         bytes 2–4 in milliseconds
/// Built by scripts/fuzz.sh; not part of the SwiftPM package.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMonitorSchedule(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard bytes.count >= 2 else { return 0 }
    let uuid = ProximityUUID(high: 0x89D6_E936_F61F_4227, low: 0xBCD2_6E94_C5A6_B2E3)
    let regions = [
        BeaconRegion(identifier: "all", uuid: uuid),
        BeaconRegion(identifier: "venue-1", uuid: uuid, major: 1),
        BeaconRegion(identifier: "door", uuid: uuid, major: 1, minor: 1),
    ].compactMap { $0 }.map { MonitoredRegion(region: $0, notifyStateOnStart: true) }
    // Periods from 1 ms up to about 4 minutes, or none.
    let stateEvery = bytes[0] == 0 ? nil : Duration(checkedSeconds: Double(bytes[0]) * Double(bytes[0]) / 256)
    let rangeEvery = bytes[1] == 0 ? nil : Duration(checkedSeconds: Double(bytes[1]) / 64)
    var session = MonitorSession(
        regions: regions, configuration: .init(exitPeriod: .seconds(5), minimumSightingsForEntry: 2),
        ranging: RangingConfiguration(), start: .origin)
    var schedule = MonitorSchedule(stateEvery: stateEvery, rangeEvery: rangeEvery)
    schedule.start(at: .origin)
    var time = 0.0
    var index = 2
    while index + 10 <= bytes.count {
        let step = bytes[index..<(index + 10)]
        index += 10
        let first = step.startIndex
        if step[first] & 0x80 != 0 {
            var pattern: UInt64 = 0
            for offset in 0..<8 { pattern |= UInt64(step[first + 2 + offset]) << (8 * UInt64(offset)) }
            time = Double(bitPattern: pattern)
        } else {
            let milliseconds = UInt32(step[first + 2]) | UInt32(step[first + 3]) << 8 | UInt32(step[first + 4]) << 16
            time += Double(milliseconds) / 1000
        }
        // Times enter through readers that refuse anything outside the accepted range.
        guard Sighting.acceptedTimes.contains(time), let now = PassTime(checkedSeconds: time) else { continue }
        let reports = schedule.fire(until: now, session: &session)
        guard reports.count <= 2 * MonitorSchedule.catchUpLimit + 2 else {
            fatalError("one step of the clock produced \(reports.count) reports")
        }
        var last: PassTime?
        for case .events(let events) in reports {
            for event in events {
                if let last, event.time < last {
                    fatalError("events out of time order: \(event.time.seconds) after \(last.seconds)")
                }
                last = event.time
                _ = MonitorJSONLines.encode(event)
            }
        }
        for case .ranging(let rangings) in reports { rangings.forEach { _ = MonitorJSONLines.encode($0) } }
        if step[first] & 0x04 != 0 {
            let minor = UInt16(step[first] & 0x03)
            let sighting = Sighting(
                advertisement: IBeaconAdvertisement(identity: BeaconIdentity(uuid: uuid, major: 1, minor: minor), measuredPower: -59),
                address: BluetoothAddress(truncating: 0xC000_0000_0000 | UInt64(minor)), addressIsRandom: true, rssi: Int(Int8(bitPattern: step[first + 1])),
                time: time, clock: .elapsed, receiver: "fuzz")
            _ = session.observe(sighting)
        } else {
            _ = session.advance(to: now)
        }
    }
    return 0
}
