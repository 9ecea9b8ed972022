import BeaconCore
import BeaconProfiles

/// libFuzzer entry: bytes from a vendor beacon's configuration service.
///
/// The low two bits of the first byte pick the reader, the rest is the input:
/// - 0: a KBeacon notification (authentication answers, acknowledgements, report parts);
///   a decoded acknowledgement or report keeps its data within the bytes given;
/// - 1: a KBeacon configuration answer (JSON); one that decodes gives a reading whose
///   settings, written back to the same configuration, make a message that decodes again;
/// - 2, 3: the Eddystone Configuration Service's values (capabilities, lock state, interval,
///   powers, challenge); a decoded interval re-encodes to the same bytes.
/// Every input is also framed as an outgoing message in parts of the size the byte picks,
/// and the parts must put the message back together. Built by scripts/fuzz.sh; not part of
/// the SwiftPM package.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBeaconProfileBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let selector = bytes.first else { return 0 }
    let input = Array(bytes.dropFirst())

    switch selector & 3 {
    case 0:
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
    case 1:
        if let configuration = try? KBeaconConfiguration(json: input) {
            let reading = configuration.reading
            let fields = reading.settings.setFields
            if let message = try? configuration.writeMessage(fields, of: reading.settings) {
                guard (try? KBeaconConfiguration(json: message)) != nil else { fatalError("a write message that does not decode") }
            }
        }
    default:
        if let capabilities = try? EddystoneConfigurationService.Capabilities(bytes: input) {
            guard capabilities.txPowers.count == input.count - 6 else { fatalError("capabilities lost a power") }
        }
        _ = try? EddystoneConfigurationService.lockState(input)
        _ = try? EddystoneConfigurationService.power(input, what: "Radio Tx Power")
        _ = try? EddystoneConfigurationService.challenge(input)
        if let interval = try? EddystoneConfigurationService.interval(input) {
            guard let value = UInt16(exactly: interval), EddystoneConfigurationService.intervalBytes(value) == input else {
                fatalError("an interval that does not re-encode")
            }
        }
    }

    let capacity = Int(selector >> 2) + 1
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
