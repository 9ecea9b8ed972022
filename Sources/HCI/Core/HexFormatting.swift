/// Hexadecimal as the Bluetooth specifications and tools write it: the one home for codes,
/// bytes and byte dumps in messages, decodes and addresses.
public enum HexText {
    private static let digits = Array("0123456789ABCDEF")

    /// `0C`: one byte, two upper-case digits.
    public static func byte(_ value: UInt8) -> String {
        String([digits[Int(value >> 4)], digits[Int(value & 0x0F)]])
    }

    /// `01 0C 03`: bytes as upper-case pairs, space-separated unless told otherwise.
    public static func bytes(_ bytes: some Sequence<UInt8>, separator: String = " ") -> String {
        bytes.map(byte).joined(separator: separator)
    }

    /// `0x0C`, `0x2006`: upper-case with at least `digits` digits, as the Core specification
    /// writes codes. Negative values print as their bit pattern.
    public static func code(_ value: some BinaryInteger, digits: Int = 2) -> String {
        let text = String(UInt64(truncatingIfNeeded: value), radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}

/// `152.5 ms`: a duration given in microseconds, in milliseconds without trailing zeros.
func millisecondsText(microseconds: UInt64) -> String {
    let whole = microseconds / 1000
    let fraction = microseconds % 1000
    guard fraction != 0 else { return "\(whole) ms" }
    var digits = String(fraction)
    digits = String(repeating: "0", count: 3 - digits.count) + digits
    while digits.hasSuffix("0") { digits.removeLast() }
    return "\(whole).\(digits) ms"
}
