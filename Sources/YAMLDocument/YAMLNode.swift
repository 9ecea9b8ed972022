/// A node of a small YAML document with the position it starts at: a scalar (its text, how
/// it was written and what YAML makes of that), a mapping (its pairs in file order,
/// duplicates kept so that the reader can name both) or a list.
public struct YAMLNode: Sendable {
    public enum Content: Sendable {
        case scalar(YAMLScalar)
        case mapping([YAMLPair])
        case sequence([YAMLNode])
    }

    public var content: Content
    public var mark: Mark

    public init(_ content: Content, at mark: Mark) {
        self.content = content
        self.mark = mark
    }

    /// How the node reads in a message: "a mapping", "a list", "`abc`".
    public var shape: String {
        switch content {
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .scalar(let scalar): scalar.kind == .null ? "nothing" : "`\(scalar.excerpt)`"
        }
    }
}

/// A scalar's text, its style and the type YAML gives it (never guessed by a resolver: see
/// `ScalarKind`).
public struct YAMLScalar: Sendable, Equatable {
    public var text: String
    public var style: ScalarStyle
    public var kind: ScalarKind

    public init(text: String, style: ScalarStyle, kind: ScalarKind) {
        self.text = text
        self.style = style
        self.kind = kind
    }

    /// The text for messages: cut when long, control characters escaped.
    public var excerpt: String {
        let cut = text.count > 40 ? String(text.prefix(40)) + "…" : text
        return ControlCharacter.escaped(cut)
    }
}

/// One `key: value` of a mapping; keys are scalars (the reader refuses others).
public struct YAMLPair: Sendable {
    public var key: String
    public var keyMark: Mark
    public var value: YAMLNode

    public init(key: String, keyMark: Mark, value: YAMLNode) {
        self.key = key
        self.keyMark = keyMark
        self.value = value
    }
}
