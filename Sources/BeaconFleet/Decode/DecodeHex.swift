import BeaconCore

/// Hexadecimal text in and out, for `beaconctl decode` and its output.
public enum DecodeHex {
    /// Why hex text could not be read; `position` is the 1-based character where.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public var position: Int
        public var reason: String

        public var description: String { "character \(position): \(reason)" }
    }

    /// Reads bytes written as hex pairs the way people paste them: `02 01 06`, `02:01:06`,
    /// `0x02 0x01 0x06`, `020106`, or mixed; commas and any whitespace separate. A group
    /// between separators holds whole bytes, so `2 01` is refused rather than guessed.
    public static func bytes(from text: String) throws(Failure) -> [UInt8] {
        var bytes: [UInt8] = []
        var group: [UInt8] = []
        var groupStart = 0
        var position = 0
        func flush() throws(Failure) {
            defer { group.removeAll(keepingCapacity: true) }
            guard !group.isEmpty else { return }
            var digits = group[...]
            if digits.count >= 2, digits[digits.startIndex] == UInt8(ascii: "0"),
               digits[digits.startIndex + 1] | 0x20 == UInt8(ascii: "x") {
                digits = digits.dropFirst(2)
                guard !digits.isEmpty else { throw Failure(position: groupStart, reason: "'0x' is not followed by hex digits") }
            }
            guard digits.count % 2 == 0 else {
                let written = String(decoding: group, as: UTF8.self)
                throw Failure(position: groupStart, reason: "'\(written)' has an odd number of hex digits; write each byte as two digits (e.g. 0A)")
            }
            var index = digits.startIndex
            while index < digits.endIndex {
                guard let high = HexDigit.value(digits[index]), let low = HexDigit.value(digits[index + 1]) else {
                    let offset = HexDigit.value(digits[index]) == nil ? index : index + 1
                    let scalar = Unicode.Scalar(digits[offset])
                    let shown = scalar.value < 0x20 || scalar.value == 0x7F ? scalar.escaped(asASCII: true) : String(scalar)
                    throw Failure(position: groupStart + (offset - group.startIndex), reason: "'\(shown)' is not a hex digit")
                }
                bytes.append(high << 4 | low)
                index += 2
            }
        }
        for scalar in text.unicodeScalars {
            position += 1
            if scalar == ":" || scalar == "," || scalar.properties.isWhitespace {
                try flush()
                continue
            }
            guard scalar.isASCII else {
                // Shown as typed, unless it is an invisible control character.
                let shown = (0x80..<0xA0).contains(scalar.value) ? scalar.escaped(asASCII: true) : String(scalar)
                throw Failure(position: position, reason: "'\(shown)' is not a hex digit")
            }
            if group.isEmpty { groupStart = position }
            group.append(UInt8(truncatingIfNeeded: scalar.value))
        }
        try flush()
        return bytes
    }
}
