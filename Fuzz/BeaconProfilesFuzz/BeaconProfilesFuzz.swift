import BeaconCore
import BeaconProfiles

/// libFuzzer entry: bytes from a vendor beacon's configuration service.
///
/// The first byte picks the reader, the rest is the input:
/// - even: a KBeacon notification (authentication answers, acknowledgements, report parts);
///   a decoded acknowledgement or report keeps its data within the bytes given;
/// - odd: a KBeacon configuration answer (JSON); one that decodes gives a reading whose
///   settings, written back to the same configuration, make a message that decodes again.
/// Every input is also framed as an outgoing message in parts of the size the byte picks,
/// and the parts must put the message back together. Built by scripts/fuzz.sh; not part of
/// the SwiftPM package.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBeaconProfileBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let selector = bytes.first else { return 0 }
    let input = Array(bytes.dropFirst())

    if selector & 1 == 0 {
        if let notification = try? KBeaconNotification(bytes: input) {
            switch notification {
            case .acknowledgement(_, _, _, let payload), .report(_, _, _, let payload):
                guard payload.count < input.count else { fatalError("a frame's data is longer than the frame") }
            case .challenge(let random, let proof, let folded):
                guard random.count == 4, proof.count == (folded ? 8 : 16) else { fatalError("a challenge of the wrong shape") }
            case .authenticated, .authenticationRefused:
                break
            }
        }
    } else if let configuration = try? KBeaconConfiguration(json: input) {
        let reading = configuration.reading
        let fields = reading.settings.setFields
        if let message = try? configuration.writeMessage(fields, of: reading.settings) {
            guard (try? KBeaconConfiguration(json: message)) != nil else { fatalError("a write message that does not decode") }
        }
    }

    let capacity = Int(selector >> 1) + 1
    var rebuilt: [UInt8] = []
    var offset = 0
    while offset < input.count || (offset == 0 && input.isEmpty) {
        guard let part = KBeaconFrame.part(of: input, type: .json, at: offset, capacity: capacity), part.count >= 3 else {
            fatalError("no part at offset \(offset) of \(input.count) bytes")
        }
        let body = part.dropFirst(3)
        guard Int(part[1]) << 8 | Int(part[2]) == offset, body.count <= capacity else { fatalError("a part out of place") }
        rebuilt += body
        offset += max(body.count, 1)
        if input.isEmpty { break }
    }
    guard rebuilt == input else { fatalError("the parts do not make the message") }
    return 0
}
