import BeaconCore
import BeaconFleet

/// libFuzzer entry: text a user hands beaconctl.
///
/// One line of a JSON-lines sighting stream (and, when it decodes, the round trip through
/// the encoder, of a sighting or a telemetry reading; whenever the byte-level fast decoder decides, the full reader must read the
/// same), and the hex reader of `beaconctl decode`. Built by scripts/fuzz.sh; not
/// part of the SwiftPM package.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSightingLine(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let sighting = try? SightingJSONLines.decode(line: bytes, lineNumber: 1, source: "fuzz", defaultClock: .elapsed) {
        let line = SightingJSONLines.encode(sighting)
        // The other default: the clock written must be the one read back.
        guard let again = try? SightingJSONLines.decode(line: Array(line.utf8), lineNumber: 1, source: "fuzz", defaultClock: .unix) else {
            fatalError("an encoded sighting does not decode: \(line)")
        }
        guard again.identity == sighting.identity, again.address == sighting.address, again.rssi == sighting.rssi,
              again.receiver == sighting.receiver, again.clock == sighting.clock,
              abs(again.time - sighting.time) <= 1e-6 * max(1, abs(sighting.time))
        else { fatalError("the JSON-lines round trip changed the sighting: \(line)") }
    }
    // A telemetry line read back from what the encoder wrote of it is the same reading.
    var readings: [TelemetryReading] = []
    _ = try? SightingJSONLines.decode(line: bytes, lineNumber: 1, source: "fuzz", defaultClock: .elapsed) { readings.append($0) }
    for reading in readings {
        let line = TelemetryJSONLines.encode(reading)
        var again: [TelemetryReading] = []
        do {
            _ = try SightingJSONLines.decode(line: Array(line.utf8), lineNumber: 1, source: "fuzz", defaultClock: .unix) { again.append($0) }
        } catch {
            fatalError("an encoded telemetry reading does not decode: \(line): \(error)")
        }
        guard let back = again.first, back.address == reading.address, back.identity == reading.identity,
              back.batteryMillivolts == reading.batteryMillivolts, back.batteryPercent == reading.batteryPercent,
              back.temperature == reading.temperature, back.source == reading.source, back.clock == reading.clock,
              back.receiver == reading.receiver, abs(back.time - reading.time) <= 1e-6 * max(1, abs(reading.time))
        else { fatalError("the telemetry line round trip changed the reading: \(line)") }
    }
    var fast = SightingJSONFastDecoder()
    let defaults = SightingJSONLines.Defaults(receiver: "fuzz", clock: .unix)
    switch bytes.withUnsafeBufferPointer({ fast.decode($0, defaults: defaults) }) {
    case .sighting(let sighting):
        guard let full = try? SightingJSONLines.decodeFully(bytes, lineNumber: 1, source: "fuzz", defaults: defaults),
              full == sighting
        else { fatalError("the fast decoder read what the full reader does not: \(String(decoding: bytes, as: UTF8.self))") }
    case .blank:
        guard (try? SightingJSONLines.decodeFully(bytes, lineNumber: 1, source: "fuzz", defaults: defaults)) == .some(nil) else {
            fatalError("the fast decoder took a line for blank that is not")
        }
    case .undecided:
        break
    }
    _ = try? DecodeHex.bytes(from: String(decoding: bytes, as: UTF8.self))
    return 0
}
