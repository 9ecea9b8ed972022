/// The scalar of the current event, borrowed from libyaml: valid until the next event, so
/// readers turn it into a value at once.
struct ScalarToken {
    let bytes: UnsafeBufferPointer<UInt8>
    let style: ScalarStyle
    let mark: Mark

    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The text for messages: quoted as written would be noise, very long values are cut,
    /// control characters are escaped (a message must not drive the terminal showing it).
    var excerpt: String {
        let limit = 40
        guard bytes.count > limit else { return ControlCharacter.escaped(text) }
        return ControlCharacter.escaped(String(decoding: bytes.prefix(limit), as: UTF8.self)) + "…"
    }
}
