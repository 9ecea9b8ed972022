import BeaconCore
import BeaconFleet
import HCI

/// libFuzzer entry: a pcap or pcapng file through the capture reader, fed in chunks as a
/// pipe delivers it, then its sightings through the verification engine.
///
/// Byte 0 picks the chunk size (1–256); the rest is the file. Checks that reading in chunks
/// gives exactly what reading the whole file gives (the same sightings, or the same error),
/// that the reader never holds more than a chunk and a block, and that the verification
/// engine takes whatever times the capture yields. Built by scripts/fuzz.sh; not part of
/// the SwiftPM package.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPcap(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let first = input.first else { return 0 }
    let chunkSize = Int(first) + 1
    let file = Array(input.dropFirst())
    guard let format = PcapReader.format(ofPrefix: file) else { return 0 }

    let whole: Result<SightingCapture, SightingStreamError>
    do {
        whole = .success(try SightingCapture(bytes: file, source: "fuzz"))
    } catch {
        whole = .failure(error)
    }

    // The same bytes in chunks, as SightingCaptureStream reads a pipe.
    var chunked: [Sighting] = []
    var chunkedError: SightingStreamError?
    var reader = PcapReader()
    var decoder = SightingCaptureDecoder(pcapFormat: format, source: "fuzz")
    var offset = 0
    do {
        while true {
            while let packet = try decoder.nextRecord(from: &reader) {
                try decoder.appendSightings(in: packet, position: reader.lastRecordPosition, to: &chunked)
            }
            if reader.isFinished || decoder.isTruncated {
                try decoder.checkEnd()
                break
            }
            guard reader.bufferedByteCount <= 2 * 64 * 1024 + PcapReader.maximumBlockLength else {
                fatalError("the reader holds \(reader.bufferedByteCount) bytes")
            }
            if offset >= file.count {
                reader.finish()
            } else {
                reader.append(file[offset..<min(file.count, offset + chunkSize)])
                offset += chunkSize
            }
        }
    } catch {
        chunkedError = error
    }
    switch whole {
    case .success(let capture):
        guard chunkedError == nil else { fatalError("chunked reading failed (\(String(describing: chunkedError))) where whole reading did not") }
        guard chunked == capture.sightings else { fatalError("chunked reading gave other sightings") }
        guard decoder.values == capture.summary else { fatalError("chunked reading gave another summary") }
        let uuid = ProximityUUID(high: 0xE2C5_6DB5_DFFB_48D2, low: 0xB060_D0F5_A710_96E0)
        let expected = [ExpectedBeacon(
            beaconID: "b", venueID: "v", identity: BeaconIdentity(uuid: uuid, major: 1, minor: 1),
            measuredPower: .calibrated(-59))]
        guard let plan = try? VerificationPlan(expected: expected) else { fatalError("the fixed plan is valid") }
        var engine = VerificationEngine(plan: plan, policy: VerificationPolicy())
        // Placed as a replay places them: a time that is no pass time counts at the clock's.
        var clock = PassTime.origin
        for sighting in capture.sightings where !engine.isFinished {
            clock = max(clock, PassTime(checkedSeconds: sighting.time) ?? clock)
            _ = engine.observe(sighting, at: clock)
        }
        _ = engine.conclude(at: clock, reason: .inputEnded)
    case .failure(let error):
        guard chunkedError == error else {
            fatalError("whole reading failed with \(error), chunked reading with \(String(describing: chunkedError))")
        }
    }
    return 0
}
