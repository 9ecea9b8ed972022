import BeaconCore

/// A mapping read strictly against the keys it may hold: an unknown key (with the nearest
/// known one suggested), a key given twice (both places named) and a required key that is
/// missing are problems, reported once each. Values are taken by key; the typed readers
/// below report a value of the wrong type with what it is instead.
public struct YAMLMapping {
    public let mark: Mark
    /// "the profile", "characteristic `major`": how messages name this mapping.
    public let phrase: String
    private var values: [String: YAMLPair] = [:]

    /// `nil` (after reporting) when `node` is not a mapping.
    public init?(_ node: YAMLNode, _ phrase: String, keys allowed: [String], problems: inout YAMLProblems) {
        guard case .mapping(let pairs) = node.content else {
            problems.report("wrong-type", "\(phrase) must be a mapping of \(allowed.map { "`\($0)`" }.joined(separator: ", ")), not \(node.shape)", at: node.mark)
            return nil
        }
        mark = node.mark
        self.phrase = phrase
        for pair in pairs {
            if let first = values[pair.key] {
                problems.report(
                    "duplicate-key", "`\(pair.key)` appears twice in \(phrase); YAML would silently keep only one", at: pair.keyMark,
                    note: "the first `\(pair.key)` is at \(first.keyMark.line):\(first.keyMark.column)", hint: "keep one of them")
                continue
            }
            guard allowed.contains(pair.key) else {
                let suggestion = Self.nearest(pair.key, in: allowed)
                problems.report(
                    "unknown-key", "unknown key `\(ControlCharacter.escaped(pair.key))` in \(phrase)", at: pair.keyMark,
                    hint: suggestion.map { "did you mean `\($0)`?" } ?? "the keys here are \(allowed.joined(separator: ", "))")
                continue
            }
            values[pair.key] = pair
        }
    }

    public subscript(_ key: String) -> YAMLNode? { values[key]?.value }

    /// Where `key` was written, for problems about its value as a whole.
    public func keyMark(_ key: String) -> Mark? { values[key]?.keyMark }

    /// The value of a key that must be there; reports it missing at the mapping.
    public func required(_ key: String, _ what: String, problems: inout YAMLProblems) -> YAMLNode? {
        if let value = values[key]?.value { return value }
        problems.report("missing-key", "\(phrase) has no `\(key)`", at: mark, hint: "add `\(key):` with \(what)")
        return nil
    }

    /// The allowed key closest to `key` by edit distance, when close enough to be a typo.
    static func nearest(_ key: String, in allowed: [String]) -> String? {
        let lowered = key.lowercased().utf8.map { $0 == UInt8(ascii: "_") ? UInt8(ascii: "-") : $0 }
        guard lowered.count <= 64 else { return nil }
        let scored = allowed.map { ($0, distance(lowered, Array($0.utf8))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(2, best.0.count / 3) else { return nil }
        return best.0
    }

    private static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// Typed values of nodes: each returns the value or reports why it is not one and returns
/// `nil`. Nothing is coerced: `"5"` is text, `010` and `0x1F` are refused as ambiguous.
extension YAMLNode {
    /// A scalar that is text (plain words or quoted); numbers and booleans are refused.
    public func text(_ what: String, problems: inout YAMLProblems) -> String? {
        guard case .scalar(let scalar) = content else {
            problems.report("wrong-type", "\(what) must be text, not \(shape)", at: mark)
            return nil
        }
        switch scalar.kind {
        case .text, .quoted, .block:
            guard !scalar.text.isEmpty else {
                problems.report("empty-value", "\(what) is empty", at: mark)
                return nil
            }
            if let control = scalar.text.unicodeScalars.first(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
                problems.report("control-character", "\(what) holds \(ControlCharacter.name(of: control))", at: mark)
                return nil
            }
            return scalar.text
        case .null:
            problems.report("empty-value", "\(what) has no value", at: mark)
        default:
            problems.report("wrong-type", "\(what) must be text, not `\(scalar.excerpt)`", at: mark, hint: "quote it if it is meant as text")
        }
        return nil
    }

    /// One of `choices`, written as plain text.
    public func choice(_ what: String, of choices: [String], problems: inout YAMLProblems) -> String? {
        guard let value = text(what, problems: &problems) else { return nil }
        guard choices.contains(value) else {
            let near = YAMLMapping.nearest(value, in: choices)
            problems.report(
                "unknown-value", "\(what) is `\(ControlCharacter.escaped(value))`; it must be one of \(choices.joined(separator: ", "))",
                at: mark, hint: near.map { "did you mean `\($0)`?" })
            return nil
        }
        return value
    }

    /// A decimal integer in `range`.
    public func integer(_ what: String, in range: ClosedRange<Int>, problems: inout YAMLProblems) -> Int? {
        guard case .scalar(let scalar) = content else {
            problems.report("wrong-type", "\(what) must be an integer \(range.lowerBound)…\(range.upperBound), not \(shape)", at: mark)
            return nil
        }
        switch scalar.kind {
        case .integer(let value) where range.contains(value):
            return value
        case .integer, .integerOverflow:
            problems.report("value-out-of-range", "\(what) is \(scalar.excerpt); it must be \(range.lowerBound)…\(range.upperBound)", at: mark)
        case .leadingZero, .prefixedInteger, .digitSeparators, .plusSign:
            problems.report(
                "ambiguous-number", "\(what) is written `\(scalar.excerpt)`, which YAML readers disagree on", at: mark,
                hint: "write a plain decimal integer")
        case .null:
            problems.report("empty-value", "\(what) has no value; it must be an integer \(range.lowerBound)…\(range.upperBound)", at: mark)
        default:
            problems.report("wrong-type", "\(what) must be an integer \(range.lowerBound)…\(range.upperBound), not `\(scalar.excerpt)`", at: mark,
                hint: scalar.style == .quoted ? "remove the quotes: quoted values are always text" : nil)
        }
        return nil
    }

    /// A finite decimal number (integers too) in `range`.
    public func number(_ what: String, in range: ClosedRange<Double>, problems: inout YAMLProblems) -> Double? {
        guard case .scalar(let scalar) = content else {
            problems.report("wrong-type", "\(what) must be a number, not \(shape)", at: mark)
            return nil
        }
        let value: Double
        switch scalar.kind {
        case .integer(let integer): value = Double(integer)
        case .decimal(let decimal, _) where decimal.isFinite: value = decimal
        default:
            problems.report("wrong-type", "\(what) must be a number, not `\(scalar.excerpt)`", at: mark)
            return nil
        }
        guard range.contains(value) else {
            problems.report("value-out-of-range", "\(what) is \(scalar.excerpt); it must be \(NumberText.plain(range.lowerBound))…\(NumberText.plain(range.upperBound))", at: mark)
            return nil
        }
        return value
    }

    /// `true` or `false`.
    public func boolean(_ what: String, problems: inout YAMLProblems) -> Bool? {
        if case .scalar(let scalar) = content, case .boolean(let value) = scalar.kind { return value }
        problems.report("wrong-type", "\(what) must be true or false, not \(shape)", at: mark)
        return nil
    }

    /// The items of a list (an empty value is an empty list).
    public func list(_ what: String, problems: inout YAMLProblems) -> [YAMLNode]? {
        switch content {
        case .sequence(let items): return items
        case .scalar(let scalar) where scalar.kind == .null: return []
        default:
            problems.report("wrong-type", "\(what) must be a list, not \(shape)", at: mark)
            return nil
        }
    }
}
