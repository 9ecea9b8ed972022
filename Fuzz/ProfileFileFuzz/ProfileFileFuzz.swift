import BeaconCore
import BeaconProfiles

/// libFuzzer entry: a declarative profile file, and the bytes its characteristics hold.
///
/// The low bit of the first byte picks the reader, the rest is the input:
/// - 0: a profile file (YAML); one that reads has a name, a source and the identity's
///   three characteristics, and every problem of one that does not has a position inside
///   the text and a code;
/// - 1: a characteristic's value under every integer layout, the interval units and a
///   level table: a decoded integer re-encodes to the same bytes, an interval in 1 ms units
///   too, and a level to the same index.
/// Built by scripts/fuzz.sh; not part of the SwiftPM package.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProfileFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let selector = bytes.first else { return 0 }
    let input = Array(bytes.dropFirst())

    if selector & 1 == 0 {
        switch ProfileDefinitionReader.read(input, file: "fuzz.yaml") {
        case .success(let definition):
            guard !definition.name.isEmpty, !definition.source.isEmpty,
                definition.values[.setting(.uuid)] != nil, definition.values[.setting(.major)] != nil, definition.values[.setting(.minor)] != nil
            else { fatalError("a profile read without its name, source or identity") }
        case .failure(let error):
            // libyaml ends a line at \n, \r\n and a lone \r (and YAML 1.1's NEL, LS and PS, whose
            // UTF-8 forms hold 0x85, 0xA8 or 0xA9): counting each of those bytes bounds it. The end
            // of the stream is one line further when the text does not end with a break (`[`
            // alone is an error at 2:1).
            let breaks: Set<UInt8> = [0x0A, 0x0D, 0x85, 0xA8, 0xA9]
            let lines = input.filter { breaks.contains($0) }.count + 2
            for problem in error.problems.problems {
                guard !problem.code.isEmpty, problem.line <= lines, problem.line >= 0 else {
                    fatalError("a problem without a code or outside the text: \(problem)")
                }
            }
            guard !error.problems.problems.isEmpty else { fatalError("a refused profile with no problem") }
        }
        return 0
    }

    for width in [1, 2, 4] {
        for signed in [false, true] where !(width == 4 && signed) {
            for order in [IntegerLayout.ByteOrder.big, .little] {
                let layout = IntegerLayout(width: width, signed: signed, byteOrder: order)
                if case .success(let value) = ValueEncoding.integer(layout).decodeNumber(input) {
                    guard ValueEncoding.integer(layout).encodeNumber(value) == .success(input) else { fatalError("an integer that does not re-encode") }
                }
                if case .success(let milliseconds) = ValueEncoding.interval(layout, unitMicroseconds: 1000).decodeNumber(input) {
                    guard ValueEncoding.interval(layout, unitMicroseconds: 1000).encodeNumber(milliseconds) == .success(input) else {
                        fatalError("a 1 ms interval that does not re-encode")
                    }
                }
                _ = ValueEncoding.interval(layout, unitMicroseconds: 625).decodeNumber(input)
            }
        }
    }
    let levels = ValueEncoding.levels(IntegerLayout(width: 1, signed: false), levels: [-30, -20, -16, -12, -8, -4, 0, 4])
    if case .success(let power) = levels.decodeNumber(input) {
        guard levels.encodeNumber(power) == .success(input) else { fatalError("a level that does not re-encode") }
    }
    _ = ValueEncoding.decodeUUID(input)
    _ = ValueEncoding.decodeASCII(input, maxLength: 20)
    return 0
}
