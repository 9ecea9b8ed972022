/// ASCII hexadecimal digits, the one reading of them for addresses, UUIDs and payloads.
public enum HexDigit {
    /// The value of `byte` as a hexadecimal digit (`0`–`9`, `a`–`f`, `A`–`F`), or `nil`.
    /// Two subtractions instead of three range tests: setting bit 5 turns `A`–`F` into
    /// `a`–`f` and maps no other byte into that range.
    @inlinable
    public static func value(_ byte: UInt8) -> UInt8? {
        let digit = byte &- UInt8(ascii: "0")
        if digit < 10 { return digit }
        let letter = (byte | 0x20) &- UInt8(ascii: "a")
        if letter < 6 { return letter &+ 10 }
        return nil
    }

    /// Hexadecimal text as bytes, two digits a byte, the high digit first (`"0aFF"` is
    /// `[0x0A, 0xFF]`); `nil` for an odd number of digits or anything that is not one.
    public static func bytes(_ digits: some Collection<UInt8>) -> [UInt8]? {
        let digits = Array(digits)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
