/// `0x0C`, `0x2006`: upper-case hexadecimal with a fixed number of digits, as the Core
/// specification writes codes. Negative values print as their bit pattern.
func hexString(_ value: some BinaryInteger, digits: Int = 2) -> String {
    let magnitude = UInt64(truncatingIfNeeded: value)
    let text = String(magnitude, radix: 16, uppercase: true)
    let padding = String(repeating: "0", count: max(0, digits - text.count))
    return "0x" + padding + text
}

/// `01 0C 03`: bytes as space-separated hexadecimal pairs, for logs and error messages.
func hexDump(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { byte in
        let text = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0" + text : text
    }.joined(separator: " ")
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
