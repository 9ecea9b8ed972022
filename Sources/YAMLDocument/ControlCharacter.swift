import BeaconCore

/// Control characters in text values: C0 (U+0000–U+001F, tab and line breaks included),
/// DEL (U+007F) and C1 (U+0080–U+009F). None belongs in an id, a name, a host or a profile's text: they move
/// a terminal's cursor or change its colours (ESC), split log lines (newline), and cut C
/// strings and environment variables short (NUL).
public enum ControlCharacter {
    /// The first control character of UTF-8 `bytes`: its code point, for messages.
    public static func first(in bytes: UnsafeBufferPointer<UInt8>) -> Unicode.Scalar? {
        var index = 0
        // Eight bytes at a time while they are printable ASCII (every text of a usual
        // manifest): a word with no byte below 0x20, none equal to 0x7F and none at 0x80 or
        // above holds no control character. The first word that may hold one, and all
        // after it, go through the byte loop below, which also sees C1's two-byte form.
        if let base = bytes.baseAddress {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            while index + 8 <= bytes.count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                let delete = word ^ (0x7F &* ones)
                // `(x - n·ones) & ~x & highs` is non-zero exactly when some byte of x is
                // below n (for n ≤ 0x80); `| word` adds the bytes with the high bit set.
                let belowSpace = (word &- 0x20 &* ones) & ~word
                let isDelete = (delete &- ones) & ~delete
                guard (belowSpace | isDelete | word) & highs == 0 else { break }
                index += 8
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte == 0x7F { return Unicode.Scalar(byte) }
            // C1 controls are U+0080–U+009F, encoded C2 80 … C2 9F.
            if byte == 0xC2, index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) {
                return Unicode.Scalar(bytes[index + 1])
            }
            index += 1
        }
        return nil
    }

    /// `text` with each control character written as an escape (`\n`, `\t`, `\u{1B}`), for
    /// messages that quote what a file holds.
    public static func escaped(_ text: String) -> String {
        ControlCharacters.escaped(text)
    }

    /// How a message names a control character: "a newline (U+000A)".
    public static func name(of scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        let names: [UInt32: String] = [
            0x00: "a NUL character", 0x09: "a tab", 0x0A: "a newline", 0x0D: "a carriage return",
            0x1B: "an escape character", 0x7F: "a delete character",
        ]
        return "\(names[scalar.value] ?? "a control character") (\(code))"
    }
}
