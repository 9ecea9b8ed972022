/// `0x0C`, `0x0002`: upper-case hexadecimal with a fixed number of digits, the way the Core
/// specification writes codes. Negative values print as their bit pattern.
func hexCode(_ value: some BinaryInteger, digits: Int = 2) -> String {
    let magnitude = UInt64(truncatingIfNeeded: value)
    let text = String(magnitude, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: max(0, digits - text.count)) + text
}
