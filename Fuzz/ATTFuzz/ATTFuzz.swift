import HCI
import LECentral

/// libFuzzer entry: bytes from a peripheral.
///
/// The ATT decoder (a decoded PDU re-encodes to bytes that decode to the same PDU), the
/// L2CAP reassembler fed the bytes as ACL fragments whose boundaries and lengths the data
/// itself chooses (every frame it completes fits the bound and re-encodes whole), the LE
/// signalling and Security Manager answers, and the UUID reader. Built by scripts/fuzz.sh;
/// not part of the SwiftPM package.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPeripheralBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []

    if let pdu = try? ATTPDU(bytes: bytes) {
        guard let again = try? ATTPDU(bytes: pdu.bytes), again == pdu else {
            fatalError("ATT PDU \(pdu) does not survive its own encoding")
        }
    }

    // Fragments: a control byte (bit 7: continuation; low bits: length), then its data.
    let bound = 64
    var reassembler = L2CAPReassembler(maximumFrameLength: bound)
    var offset = 0
    while offset < bytes.count {
        let control = bytes[offset]
        let start = offset + 1
        let end = min(bytes.count, start + Int(control & 0x3F))
        let fragment = ACLDataPacket(
            handle: 0x40, boundary: control & 0x80 != 0 ? .continuation : .firstNonFlushable, data: Array(bytes[start..<end]))
        if let frame = reassembler.receive(fragment).frame {
            guard frame.payload.count <= bound, let encoded = frame.bytes, (try? L2CAPFrame(bytes: encoded)) == frame else {
                fatalError("the reassembler completed a frame outside its bound or not whole: \(frame)")
            }
            _ = LESignallingAnswer.answering(frame.payload)
            _ = SecurityManagerAnswer.answering(frame.payload)
            _ = try? ATTPDU(bytes: frame.payload)
        }
        offset = end
    }

    _ = LESignallingAnswer.answering(bytes)
    _ = AttributeUUID(String(decoding: bytes, as: UTF8.self))
    _ = AttributeUUID(littleEndian: bytes)
    return 0
}
