import CYAML

/// A 1-based line and column (in characters) inside one file, the compact form kept while
/// reading; `SourceLocation` adds the file name when a diagnostic needs it.
public struct Mark: Hashable, Comparable, Sendable {
    public var line: Int32
    public var column: Int32

    /// libyaml counts lines and columns from 0; people and editors count from 1.
    @inlinable public init(_ mark: yaml_mark_t) {
        line = Int32(clamping: mark.line + 1)
        column = Int32(clamping: mark.column + 1)
    }

    public init(line: Int32, column: Int32) {
        self.line = line
        self.column = column
    }

    public static let startOfFile = Mark(line: 1, column: 1)

    public static func < (lhs: Mark, rhs: Mark) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}

public enum YAMLEventKind: Equatable, Sendable {
    case streamStart, streamEnd, documentStart, documentEnd
    case mappingStart, mappingEnd, sequenceStart, sequenceEnd
    case scalar, alias
}

/// How a scalar was written, which decides its type: `010` and `"010"` are different things.
public enum ScalarStyle: Equatable, Sendable {
    case plain
    /// Single- or double-quoted.
    case quoted
    /// Literal `|` or folded `>`.
    case block
}

/// Why the event stream cannot go on; the reader turns it into a diagnostic and gives up
/// on the file (nothing after a syntax error can be trusted).
public enum YAMLStreamFailure: Error {
    /// The bytes are not UTF-8 text: invalid sequences, NUL or other control characters.
    case encoding(problem: String, byteOffset: Int, byte: Int32)
    /// The text is not well-formed YAML.
    case syntax(problem: String, at: Mark, context: String?, contextMark: Mark?)
    /// Mappings and sequences nested deeper than the limit.
    case tooDeep(at: Mark, limit: Int)
}

/// Pulls libyaml events from an in-memory UTF-8 buffer one at a time. The current event's
/// scalar bytes are borrowed from libyaml and valid until the next `advance()`; nothing is
/// copied per event.
///
/// The bytes must outlive the source (callers create it inside `withUnsafeBufferPointer`).
public struct YAMLEventSource: ~Copyable {
    @usableFromInline let parser: UnsafeMutablePointer<yaml_parser_t>
    @usableFromInline let event: UnsafeMutablePointer<yaml_event_t>
    private var holdsEvent = false
    public private(set) var kind: YAMLEventKind = .streamStart
    /// Mappings and sequences open around the current event.
    public private(set) var depth = 0
    private let maxDepth: Int

    public init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        parser = .allocate(capacity: 1)
        event = .allocate(capacity: 1)
        event.initialize(to: yaml_event_t())
        self.maxDepth = maxDepth
        // yaml_parser_initialize only fails when malloc does; the parser then reports
        // YAML_MEMORY_ERROR from the first yaml_parser_parse, which advance() handles.
        _ = yaml_parser_initialize(parser)
        // YAML read here is UTF-8. Without this libyaml would silently decode UTF-16 files
        // that start with a byte-order mark.
        yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
        yaml_parser_set_input_string(parser, bytes.baseAddress, bytes.count)
    }

    deinit {
        if holdsEvent { yaml_event_delete(event) }
        yaml_parser_delete(parser)
        event.deallocate()
        parser.deallocate()
    }

    /// Moves to the next event and returns its kind.
    public mutating func advance() throws(YAMLStreamFailure) -> YAMLEventKind {
        if holdsEvent {
            yaml_event_delete(event)
            holdsEvent = false
        }
        guard yaml_parser_parse(parser, event) != 0 else { throw failure() }
        holdsEvent = true
        switch event.pointee.type {
        case YAML_STREAM_START_EVENT: kind = .streamStart
        case YAML_STREAM_END_EVENT: kind = .streamEnd
        case YAML_DOCUMENT_START_EVENT: kind = .documentStart
        case YAML_DOCUMENT_END_EVENT: kind = .documentEnd
        case YAML_MAPPING_START_EVENT, YAML_SEQUENCE_START_EVENT:
            kind = event.pointee.type == YAML_MAPPING_START_EVENT ? .mappingStart : .sequenceStart
            depth += 1
            if depth > maxDepth { throw .tooDeep(at: mark, limit: maxDepth) }
        case YAML_MAPPING_END_EVENT:
            kind = .mappingEnd
            depth -= 1
        case YAML_SEQUENCE_END_EVENT:
            kind = .sequenceEnd
            depth -= 1
        case YAML_SCALAR_EVENT: kind = .scalar
        case YAML_ALIAS_EVENT: kind = .alias
        default:
            throw .syntax(problem: "libyaml produced no event", at: mark, context: nil, contextMark: nil)
        }
        return kind
    }

    /// Skips the node that starts with the current event, all of it however deep (a scalar
    /// or an alias is a whole node already). Inside a node only node events can come.
    public mutating func skipNode() throws(YAMLStreamFailure) {
        guard kind == .mappingStart || kind == .sequenceStart else { return }
        var open = 1
        while open > 0 {
            switch try advance() {
            case .mappingStart, .sequenceStart: open += 1
            case .mappingEnd, .sequenceEnd: open -= 1
            case .scalar, .alias: break
            default: throw unexpectedEvent()
            }
        }
    }

    /// The failure for an event that cannot stand where it is, at its place.
    public func unexpectedEvent() -> YAMLStreamFailure {
        .syntax(problem: "unexpected YAML event", at: mark, context: nil, contextMark: nil)
    }

    /// Where the current event starts. This and the scalar accessors are read once or
    /// more per event: forced inline, they read two fields where a call copied the source.
    @inlinable public var mark: Mark { Mark(event.pointee.start_mark) }

    /// The current scalar's text; empty for other events.
    @inlinable public var scalarBytes: UnsafeBufferPointer<UInt8> {
        guard kind == .scalar else { return UnsafeBufferPointer(start: nil, count: 0) }
        let scalar = event.pointee.data.scalar
        return UnsafeBufferPointer(start: scalar.value, count: scalar.length)
    }

    @inlinable public var scalarStyle: ScalarStyle {
        switch event.pointee.data.scalar.style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE, YAML_DOUBLE_QUOTED_SCALAR_STYLE: return .quoted
        case YAML_LITERAL_SCALAR_STYLE, YAML_FOLDED_SCALAR_STYLE: return .block
        default: return .plain
        }
    }

    /// The explicit tag (`!!str`, `!custom`) of the current node, if it has one. Asked of
    /// every value: the usual answer, none, is a pointer test that inlines; only a tag
    /// present builds its text.
    @inlinable public var explicitTag: String? {
        guard let tag = tagPointer else { return nil }
        return Self.tagText(tag)
    }

    @inlinable var tagPointer: UnsafeMutablePointer<yaml_char_t>? {
        switch kind {
        case .scalar: return event.pointee.data.scalar.tag
        case .mappingStart: return event.pointee.data.mapping_start.tag
        case .sequenceStart: return event.pointee.data.sequence_start.tag
        default: return nil
        }
    }

    @usableFromInline static func tagText(_ tag: UnsafeMutablePointer<yaml_char_t>) -> String {
        // libyaml hands out resolved tags; show the `!!int` shorthand people write.
        let resolved = String(cString: tag)
        let standardPrefix = "tag:yaml.org,2002:"
        return resolved.hasPrefix(standardPrefix) ? "!!" + resolved.dropFirst(standardPrefix.count) : resolved
    }

    /// The name an alias event refers to (`*name`).
    public var aliasName: String {
        guard kind == .alias, let anchor = event.pointee.data.alias.anchor else { return "" }
        return String(cString: anchor)
    }

    private func failure() -> YAMLStreamFailure {
        let problem = parser.pointee.problem.map { String(cString: $0) } ?? "unknown problem"
        switch parser.pointee.error {
        case YAML_READER_ERROR:
            // The reader reports a byte offset; its marks are not set.
            return .encoding(
                problem: problem, byteOffset: parser.pointee.problem_offset,
                byte: parser.pointee.problem_value)
        case YAML_MEMORY_ERROR:
            return .syntax(
                problem: "out of memory while parsing", at: Mark(parser.pointee.mark), context: nil,
                contextMark: nil)
        default:
            let context = parser.pointee.context.map { String(cString: $0) }
            return .syntax(
                problem: problem, at: Mark(parser.pointee.problem_mark), context: context,
                contextMark: context == nil ? nil : Mark(parser.pointee.context_mark))
        }
    }
}
