/// One problem found in a small YAML document (a configuration profile): where it is, what
/// is wrong, and what to do about it. `code` is a stable kebab-case name tools and tests
/// match on (`unknown-key`, `duplicate-key`, `wrong-type` …).
public struct YAMLProblem: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    /// 1-based; 0 when the problem concerns the file as a whole.
    public var line: Int
    public var column: Int
    public var code: String
    public var message: String
    /// Where an earlier, related thing is (the first of two duplicate keys).
    public var note: String?
    /// What to do next.
    public var hint: String?

    public init(file: String, at mark: Mark?, code: String, message: String, note: String? = nil, hint: String? = nil) {
        self.file = file
        self.line = mark.map { Int($0.line) } ?? 0
        self.column = mark.map { Int($0.column) } ?? 0
        self.code = code
        self.message = message
        self.note = note
        self.hint = hint
    }

    /// `file:line:col`, or the file alone for the whole file.
    public var location: String {
        line == 0 ? file : "\(file):\(line):\(column)"
    }

    /// `file:line:col: error[code]: message`, then the note and the hint on lines of their own.
    public var description: String {
        var text = "\(location): error[\(code)]: \(message)"
        if let note { text += "\n  note: \(note)" }
        if let hint { text += "\n  hint: \(hint)" }
        return text
    }
}

/// The problems of one document, kept up to a limit (a hostile file cannot grow the report
/// without bound; past the limit they are counted).
public struct YAMLProblems: Sendable {
    public let file: String
    public private(set) var problems: [YAMLProblem] = []
    public private(set) var suppressed = 0
    public let limit: Int

    public init(file: String, limit: Int = 100) {
        self.file = file
        self.limit = max(1, limit)
    }

    public var isEmpty: Bool { problems.isEmpty }

    public mutating func report(_ code: String, _ message: String, at mark: Mark?, note: String? = nil, hint: String? = nil) {
        guard problems.count < limit else {
            suppressed += 1
            return
        }
        problems.append(YAMLProblem(file: file, at: mark, code: code, message: message, note: note, hint: hint))
    }

    /// Every problem in file order, one block each; a last line counts those not kept.
    public var rendered: String {
        var blocks = problems.sorted { ($0.line, $0.column) < ($1.line, $1.column) }.map(\.description)
        if suppressed > 0 { blocks.append("\(file): \(suppressed) more problems not shown; fix the ones above first") }
        return blocks.joined(separator: "\n")
    }
}
