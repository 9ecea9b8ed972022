/// Reads a small YAML document (a configuration profile, a few kilobytes) into a node tree
/// with positions. Only plain YAML is taken: one document, no aliases, no explicit tags,
/// keys that are scalars. Nesting is bounded by `maxDepth` and the tree by `maxNodes`, so
/// that no file can exhaust the stack or memory. The fleet manifest does not build a tree:
/// its reader streams the same events (`YAMLEventSource`).
public enum YAMLTreeReader {
    /// The document's root, or `nil` with the reasons in `problems`.
    public static func read(
        _ bytes: [UInt8], problems: inout YAMLProblems, maxDepth: Int = 16, maxNodes: Int = 10_000
    ) -> YAMLNode? {
        // A UTF-8 byte-order mark is not text; columns count from the first character.
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        return bytes[start...].withUnsafeBufferPointer { buffer -> YAMLNode? in
            var builder = Builder(events: YAMLEventSource(bytes: buffer, maxDepth: maxDepth), maxNodes: maxNodes)
            do throws(YAMLStreamFailure) {
                let root = try builder.document(problems: &problems)
                return problems.isEmpty ? root : nil
            } catch {
                if let mark = builder.overflow {
                    problems.report(
                        "document-too-large", "the document has more than \(maxNodes) values; a profile needs a few dozen", at: mark,
                        hint: "this is not a configuration profile, or it repeats itself")
                } else {
                    report(error, in: buffer, problems: &problems)
                }
                return nil
            }
        }
    }

    private static func report(_ failure: YAMLStreamFailure, in bytes: UnsafeBufferPointer<UInt8>, problems: inout YAMLProblems) {
        switch failure {
        case .encoding(let problem, let offset, _):
            problems.report(
                "invalid-encoding", "not UTF-8 text (\(problem) at byte offset \(offset))",
                at: TextPosition.of(byteOffset: offset, in: bytes),
                hint: "save the file as UTF-8 text; control characters other than tab and line breaks cannot appear in YAML")
        case .syntax(let problem, let mark, let context, _):
            problems.report(
                "yaml-syntax", "YAML syntax error: \(problem)\(context.map { " \($0)" } ?? "")", at: mark,
                hint: "check the indentation and the `key: value` form on this line and the one before")
        case .tooDeep(let mark, let limit):
            problems.report("nesting-too-deep", "mappings and lists are nested more than \(limit) levels deep", at: mark)
        }
    }

    private struct Builder: ~Copyable {
        var events: YAMLEventSource
        let maxNodes: Int
        var nodes = 0
        /// Where the node limit was passed.
        var overflow: Mark?

        init(events: consuming YAMLEventSource, maxNodes: Int) {
            self.events = events
            self.maxNodes = maxNodes
        }

        mutating func document(problems: inout YAMLProblems) throws(YAMLStreamFailure) -> YAMLNode? {
            guard try events.advance() == .streamStart else { throw events.unexpectedEvent() }
            guard try events.advance() == .documentStart else {
                problems.report("empty-document", "the file holds no YAML document", at: nil)
                return nil
            }
            _ = try events.advance()
            let root = try node(problems: &problems)
            guard try events.advance() == .documentEnd else { throw events.unexpectedEvent() }
            if try events.advance() == .documentStart {
                problems.report("multiple-documents", "a second YAML document starts here; the file holds one", at: events.mark,
                    hint: "remove the `---` line and what follows, or put it in a file of its own")
            }
            if case .scalar(let scalar) = root?.content, scalar.kind == .null {
                problems.report("empty-document", "the document is empty", at: root?.mark)
                return nil
            }
            return root
        }

        /// The node starting at the current event; `nil` after reporting one not taken.
        mutating func node(problems: inout YAMLProblems) throws(YAMLStreamFailure) -> YAMLNode? {
            let mark = events.mark
            nodes += 1
            if nodes > maxNodes {
                overflow = mark
                throw events.unexpectedEvent()
            }
            if let tag = events.explicitTag {
                problems.report("yaml-tag", "explicit YAML tags (`\(tag)`) are not used here", at: mark,
                    hint: "remove the tag; quote the value if it is meant as text")
                try events.skipNode()
                return nil
            }
            switch events.kind {
            case .scalar:
                let token = ScalarToken(bytes: events.scalarBytes, style: events.scalarStyle, mark: mark)
                return YAMLNode(.scalar(YAMLScalar(text: token.text, style: token.style, kind: ScalarKind(of: token))), at: mark)
            case .alias:
                problems.report("yaml-alias", "YAML aliases (`*\(events.aliasName)`) are not supported here", at: mark,
                    hint: "write the value out where it is needed")
                return nil
            case .sequenceStart:
                var items: [YAMLNode] = []
                while try events.advance() != .sequenceEnd {
                    if let item = try node(problems: &problems) { items.append(item) }
                }
                return YAMLNode(.sequence(items), at: mark)
            case .mappingStart:
                var pairs: [YAMLPair] = []
                while try events.advance() != .mappingEnd {
                    let keyMark = events.mark
                    let key = try node(problems: &problems)
                    _ = try events.advance()
                    let value = try node(problems: &problems)
                    guard case .scalar(let scalar)? = key?.content else {
                        if let key {
                            problems.report("wrong-type", "a key must be a name, not \(key.shape)", at: keyMark)
                        }
                        continue
                    }
                    if let value { pairs.append(YAMLPair(key: scalar.text, keyMark: keyMark, value: value)) }
                }
                return YAMLNode(.mapping(pairs), at: mark)
            default:
                throw events.unexpectedEvent()
            }
        }
    }
}
