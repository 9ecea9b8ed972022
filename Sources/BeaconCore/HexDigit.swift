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
}
