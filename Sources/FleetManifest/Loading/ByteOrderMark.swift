/// The UTF-8 byte-order mark (U+FEFF as EF BB BF), which some editors (Notepad, Excel's
/// "CSV UTF-8") put at the start of a file. It is not text: every reader of manifests and
/// spreadsheets skips it, so that positions count from the first real character.
public enum ByteOrderMark {
    public static let utf8: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// How many leading bytes of `bytes` are a UTF-8 byte-order mark: 3 or 0.
    public static func utf8Length(of bytes: some Collection<UInt8>) -> Int {
        bytes.starts(with: utf8) ? utf8.count : 0
    }
}
