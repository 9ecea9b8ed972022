/// The scalar of the current event, borrowed from libyaml: valid until the next event, so
/// readers turn it into a value at once.
public struct ScalarToken {
    public let bytes: UnsafeBufferPointer<UInt8>
    public let style: ScalarStyle
    public let mark: Mark

    public init(bytes: UnsafeBufferPointer<UInt8>, style: ScalarStyle, mark: Mark) {
        self.bytes = bytes
        self.style = style
        self.mark = mark
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The text for messages: quoted as written would be noise, very long values are cut,
    /// control characters are escaped (a message must not drive the terminal showing it).
    public var excerpt: String {
        let limit = 40
        guard bytes.count > limit else { return ControlCharacter.escaped(text) }
        return ControlCharacter.escaped(String(decoding: bytes.prefix(limit), as: UTF8.self)) + "…"
    }
}
