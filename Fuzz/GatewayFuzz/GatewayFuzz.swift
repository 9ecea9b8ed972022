import BeaconCore
import BeaconFleet

/// libFuzzer entry: a message on a broker, as any gateway kind's decoder reads it.
///
/// The input's first byte picks the kind, the text up to the first newline is the topic
/// and the rest the payload. Every reading must be one of the five, a sighting must carry
/// the arrival time and a receiver naming the kind, and the decoder must answer the same
/// twice (it is pure), with or without its telemetry; the kind is also guessed from the message. Built by scripts/fuzz.sh; not part of the SwiftPM package.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGateway(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let selector = bytes.first else { return 0 }
    let kinds = GatewayKind.allCases
    let kind = kinds[Int(selector) % kinds.count]
    let rest = bytes.dropFirst()
    let newline = rest.firstIndex(of: 0x0A) ?? rest.endIndex
    let topic = String(decoding: rest[..<newline], as: UTF8.self)
    let payload = Array(rest[newline...].dropFirst())
    let decoder = kind.decoder
    let arrival = 1_790_000_000.5
    for base in [decoder.defaultBase, "x"] {
        let reading = decoder.read(topic: topic, payload: payload, base: base, arrivalTime: arrival)
        guard reading == decoder.read(topic: topic, payload: payload, base: base, arrivalTime: arrival) else {
            fatalError("\(kind) read the same message two ways")
        }
        // With its telemetry: the same reading, and every reading names its beacon and measured a battery or temperature.
        var telemetry = GatewayTelemetry()
        guard reading == decoder.read(topic: topic, payload: payload, base: base, arrivalTime: arrival, telemetry: &telemetry) else {
            fatalError("\(kind) read a message another way when asked for its telemetry")
        }
        for found in telemetry.readings {
            guard found.address != nil || found.identity != nil,
                  found.batteryMillivolts != nil || found.batteryPercent != nil || found.temperature != nil,
                  found.batteryPercent.map({ $0 <= 100 }) ?? true
            else { fatalError("\(kind): a telemetry reading of no beacon or of nothing: \(found)") }
        }
        switch reading {
        case .sightings(let sightings):
            for sighting in sightings where kind != .beaconctl {
                guard sighting.time == arrival, sighting.receiver.hasSuffix(" (\(kind.rawValue))") else {
                    fatalError("\(kind): a sighting without the arrival time or the kind in its receiver: \(sighting)")
                }
            }
        case .receiverStatus(let receiver, _):
            guard kind == .beaconctl || receiver.hasSuffix(" (\(kind.rawValue))") else {
                fatalError("\(kind): a status naming \(receiver)")
            }
        case .partlyReadable(let sightings, let unreadable, _):
            // Only beaconctl's batches of lines are read line by line: some kept, some not.
            guard kind == .beaconctl, !sightings.isEmpty, unreadable > 0 else {
                fatalError("\(kind): a partly readable message of \(sightings.count) sightings and \(unreadable) unreadable lines")
            }
        case .withoutIdentity, .ignored, .malformed:
            break
        }
    }
    return 0
}
