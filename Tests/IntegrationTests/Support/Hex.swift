extension FixedWidthInteger where Self: UnsignedInteger {
    /// Zero-padded upper-case hex, two digits per byte: `0C03`, `0E`.
    var hex: String {
        let digits = String(self, radix: 16, uppercase: true)
        return String(repeating: "0", count: Swift.max(0, MemoryLayout<Self>.size * 2 - digits.count)) + digits
    }
}

extension Sequence<UInt8> {
    /// Bytes as space-separated hex, the way HCI traces print them: `04 0E 04 01 03 0C 00`.
    var hexString: String { map(\.hex).joined(separator: " ") }
}
