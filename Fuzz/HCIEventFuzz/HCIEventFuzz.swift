import BeaconCore
import BeaconFleet
import HCI

/// libFuzzer entry: bytes from a controller or a capture file.
///
/// The HCI event decoder and the sighting extractor (advertising reports, extended
/// fragments), the H4 stream parser fed in chunks, the btsnoop reader (on the bytes as a
/// whole file, and behind a valid header so records are reached), and `beaconctl decode`'s
/// event decoder. Built by scripts/fuzz.sh; not part of the SwiftPM package.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzControllerBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []

    var extractor = SightingExtractor(receiver: "fuzz")
    if let event = try? HCIEvent(body: bytes[...]) {
        _ = extractor.extract(from: event, at: 0)
        // A decoded event re-encodes to the bytes it came from, length octet included.
        if let packet = try? event.packet(), case .le(let meta) = event, meta.subevent.rawValue == 0x02 || meta.subevent.rawValue == 0x0D {
            guard packet.body == bytes else { fatalError("advertising report event does not re-encode to its bytes") }
        }
    }
    _ = DecodeText.render(DecodedInput(bytes: bytes, as: .event))

    // The H4 stream parser, with chunk sizes taken from the data itself.
    var parser = H4StreamParser(maximumPayloadLength: 1024)
    var offset = 0
    while offset < bytes.count {
        let chunk = 1 + Int(bytes[offset] % 17)
        let end = min(bytes.count, offset + chunk)
        let result = parser.parse(bytes[offset..<end])
        for packet in result.packets where packet.type == .event {
            if let event = try? HCIEvent(packet: packet) { _ = extractor.extract(from: event, at: 1) }
        }
        offset = end
    }

    _ = try? SightingCapture(bytes: bytes, source: "fuzz")
    for datalink: UInt32 in [1001, 1002, 2001] {
        let header = Array("btsnoop".utf8) + [0, 0, 0, 0, 1] + withUnsafeBytes(of: datalink.bigEndian) { Array($0) }
        _ = try? SightingCapture(bytes: header + bytes, source: "fuzz")
    }
    return 0
}
