import BeaconCore
import BeaconCLI
import BeaconFleet

/// libFuzzer entry: a sighting stream through the verification engine and every report
/// renderer of the library (JSON, JUnit, Markdown, the summary line and each verdict's
/// explanation), one level up from the parsers.
///
/// Each 12 input bytes are one sighting, so that the fuzzer controls exactly what the
/// engine sees, including what no parser lets through today (NaN, infinite and enormous
/// times, time going backwards):
///   0     which identity (low 3 bits: 8 identities; the 4 expected, 3 unexpected, 1 foreign)
///   1     measured power (int8)
///   2     RSSI (int8; 127 = none)
///   3     address (low 2 bits: 4 devices)
///   4–11  the time: a Double's bit pattern (little-endian) when byte 3 bit 7 is set, else
///         milliseconds since the previous sighting from bytes 4–5
/// Built by scripts/fuzz.sh; not part of the SwiftPM package.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVerification(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let uuid = ProximityUUID(high: 0x89D6_E936_F61F_4227, low: 0xBCD2_6E94_C5A6_B2E3)
    let foreign = ProximityUUID(high: 1, low: 2)
    var expected: [ExpectedBeacon] = []
    for minor in UInt16(1)...4 {
        let major: UInt16 = minor <= 2 ? 1 : 2
        let power: MeasuredPowerExpectation = minor == 4 ? .plausible(-100 ... -30) : .calibrated(-59)
        expected.append(ExpectedBeacon(
            beaconID: "beacon-\(minor)", venueID: minor <= 2 ? "front" : "back",
            identity: BeaconIdentity(uuid: uuid, major: major, minor: minor),
            measuredPower: power, intervalMilliseconds: minor == 3 ? 1000 : 100))
    }
    guard let plan = try? VerificationPlan(expected: expected, scope: "fleet fuzz") else {
        fatalError("the fixed plan is valid")
    }
    var engine = VerificationEngine(plan: plan, policy: VerificationPolicy(timeout: .seconds(Int(bytes.first ?? 10))))
    var time = 0.0
    var clock = PassTime.origin
    var index = 1
    while index + 12 <= bytes.count, !engine.isFinished {
        let record = bytes[index..<(index + 12)]
        index += 12
        let first = record.startIndex
        let which = Int(record[first] & 0x07)
        let identity: BeaconIdentity
        switch which {
        case 0..<4: identity = expected[which].identity
        case 4..<7: identity = BeaconIdentity(uuid: uuid, major: UInt16(which), minor: 900)
        default: identity = BeaconIdentity(uuid: foreign, major: 1, minor: 1)
        }
        let rawRSSI = Int8(bitPattern: record[first + 2])
        if record[first + 3] & 0x80 != 0 {
            var pattern: UInt64 = 0
            for offset in 0..<8 { pattern |= UInt64(record[first + 4 + offset]) << (8 * UInt64(offset)) }
            time = Double(bitPattern: pattern)
        } else {
            time += Double(UInt16(record[first + 4]) | UInt16(record[first + 5]) << 8) / 1000
        }
        let sighting = Sighting(
            advertisement: IBeaconAdvertisement(identity: identity, measuredPower: Int8(bitPattern: record[first + 1])),
            address: BluetoothAddress(truncating: 0xC000_0000_0000 | UInt64(record[first + 3] & 0x03)), addressIsRandom: true,
            rssi: rawRSSI == 127 ? nil : Int(rawRSSI), time: time, clock: .elapsed, receiver: "fuzz")
        // Placed as the pass places it: a time that is no pass time counts at the clock's.
        clock = max(clock, PassTime(checkedSeconds: time) ?? clock)
        // The input said it was blind, or delivers again (a broker lost, back).
        engine.inputBlind = record[first] & 0x10 != 0
        _ = engine.observe(sighting, at: PassTime(checkedSeconds: time) ?? clock)
        if record[first] & 0x08 != 0 { _ = engine.advance(to: clock) }
    }
    let (result, _) = engine.conclude(at: clock, reason: bytes.last.map { $0 & 1 == 0 } == true ? .inputEnded : .inputLost)
    // Every renderer, and every sentence a report is built from.
    _ = VerificationJSONReport.render(result)
    _ = VerificationJUnitReport.render(result)
    _ = VerificationMarkdownReport.render(result)
    _ = VerificationSummary.line(result)
    for verdict in result.verdicts { _ = verdict.explanation(in: result) }
    for unexpected in result.unexpected { _ = unexpected.explanation }
    guard result.verdicts.count == expected.count else {
        fatalError("a verdict per expected beacon: \(result.verdicts.count) of \(expected.count)")
    }
    return 0
}
