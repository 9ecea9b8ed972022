import BeaconCore
import BeaconFleet

/// libFuzzer entry: advertising data from the air, through everything that reads it.
///
/// The AD structure parser, the iBeacon finder, the telemetry frames (Eddystone-TLM, KKM), and `beaconctl decode`'s decoder and text
/// formatter, on the bytes read as advertising data and as whatever `--as auto` makes of
/// them. Built by scripts/fuzz.sh; not part of the SwiftPM package.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAdvertisingData(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if case .success(let structures) = AdvertisingData.parse(bytes) {
        // Re-encoding what was parsed gives back the significant part of the input.
        var encoded: [UInt8] = []
        for structure in structures {
            encoded.append(UInt8(structure.data.count + 1))
            encoded.append(structure.type)
            encoded += structure.data
        }
        guard bytes.starts(with: encoded) else { fatalError("AD structures do not re-encode to their input") }
    }
    let beacon = IBeaconAdvertisement(advertisingData: bytes)
    let decoded = DecodedAdvertisingData(bytes)
    // The decoder and the finder must agree on what is an iBeacon.
    guard (decoded.iBeacon?.advertisement == beacon) else { fatalError("decoder and finder disagree") }
    // Eddystone-TLM, from the advertising data and from the bytes taken as a frame: a plain
    // reading only from a frame of exactly 14 bytes.
    _ = EddystoneTelemetry(advertisingData: bytes)
    if case .plain = EddystoneTelemetry(frame: bytes), bytes.count != 14 { fatalError("a plain TLM reading from \(bytes.count) bytes") }
    // KKM's frames: a system reading only from 11 bytes or more, with a level of 100 % at most.
    if case .system(let system) = KKMTelemetry(frame: bytes), bytes.count < 11 || system.batteryPercent > 100 {
        fatalError("a KKM system reading from \(bytes.count) bytes")
    }
    // Whatever frame an advertisement carries, its reading (if any) measured something.
    if let found = AdvertisedTelemetry(advertisingData: bytes),
       let reading = found.reading(address: .zero, addressIsRandom: false, time: 0, clock: .elapsed, receiver: "fuzz"),
       reading.batteryMillivolts == nil && reading.batteryPercent == nil && reading.temperature == nil {
        fatalError("a telemetry reading that measured nothing")
    }
    _ = DecodeText.render(.advertisingData(decoded))
    _ = DecodeText.render(DecodedInput(bytes: bytes, as: .auto))
    return 0
}
