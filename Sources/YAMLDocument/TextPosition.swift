/// Line and column of a byte offset, counted the way libyaml counts its marks: `\n`,
/// `\r\n` and a lone `\r` end a line; columns count characters (UTF-8 lead bytes).
///
/// Needed for encoding errors, which libyaml reports as a byte offset only.
public enum TextPosition {
    public static func of(byteOffset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Mark {
        var line = 1
        var column = 1
        var index = 0
        let end = min(byteOffset, bytes.count)
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte == UInt8(ascii: "\r") {
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") {
                    // The `\n` of a `\r\n` pair ends the line on the next turn.
                } else {
                    line += 1
                    column = 1
                }
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return Mark(line: Int32(clamping: line), column: Int32(clamping: column))
    }
}
