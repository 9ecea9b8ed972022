import Testing
@testable import BeaconCore

@Suite struct HexDigitTests {
    /// Every byte against the digits spelled out: `0`–`9`, `a`–`f` and `A`–`F` have their
    /// values, nothing else has one (bit 5's trick maps no other byte into `a`–`f`).
    @Test func everyByte() {
        var expected: [UInt8: UInt8] = [:]
        for (offset, digit) in "0123456789".utf8.enumerated() { expected[digit] = UInt8(offset) }
        for (offset, digit) in "abcdef".utf8.enumerated() { expected[digit] = UInt8(offset + 10) }
        for (offset, digit) in "ABCDEF".utf8.enumerated() { expected[digit] = UInt8(offset + 10) }
        for byte in UInt8.min...UInt8.max {
            #expect(HexDigit.value(byte) == expected[byte], "byte \(byte)")
        }
    }

    /// The address reader against a plain one (split on colons, two digits an octet) on
    /// texts of 17 bytes drawn from digits, near-digits and separators, fixed seed.
    @Test func addressReaderAgreesWithSplittingOnColons() {
        let alphabet = Array("0189afAFgG:-/@`".utf8)
        let hexAlphabet = Array("0189afAF".utf8)
        var state: UInt64 = 0x5EED_0001
        func next() -> Int {
            // SplitMix64: a fixed sequence, the same on every run.
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int(truncatingIfNeeded: (mixed ^ (mixed >> 31)) >> 1)
        }
        func plain(_ text: [UInt8]) -> UInt64? {
            let octets = text.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
            guard octets.count == 6 else { return nil }
            var value: UInt64 = 0
            for octet in octets {
                // Only digits: `UInt8(_:radix:)` alone would take a sign ("-0").
                guard octet.count == 2, octet.allSatisfy({ "0123456789abcdefABCDEF".utf8.contains($0) }),
                      let byte = UInt8(String(decoding: octet, as: UTF8.self), radix: 16)
                else { return nil }
                value = value << 8 | UInt64(byte)
            }
            return value
        }
        var accepted = 0
        for round in 0..<20_000 {
            var text = (0..<17).map { _ in alphabet[next() % alphabet.count] }
            // Half the texts get their colons in place, half of those hexadecimal digits
            // with one byte at most drawn from the whole alphabet: acceptance and the refusal
            // of a single bad byte are exercised, not only of noise.
            if round % 2 == 0 {
                for index in 0..<17 {
                    text[index] = index % 3 == 2 ? UInt8(ascii: ":") : hexAlphabet[next() % hexAlphabet.count]
                }
                if round % 4 == 2 { text[next() % 17] = alphabet[next() % alphabet.count] }
            }
            let read = BluetoothAddress(utf8: text)?.value
            #expect(read == plain(text), "\(String(decoding: text, as: UTF8.self))")
            if read != nil { accepted += 1 }
        }
        #expect(accepted > 5_000)
    }
}
