/// Why a sighting stream (JSON lines or a btsnoop capture) could not be read. The message
/// names the input and, for JSON lines, the line and column, so the user can open the
/// file at the spot.
public struct SightingStreamError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file name, `<stdin>`, or another label the caller gave.
    public var source: String
    /// 1-based line of a JSON-lines input; `nil` for problems with the input as a whole.
    public var line: Int?
    /// 1-based byte column inside the line, when known.
    public var column: Int?
    public var reason: String

    public init(source: String, line: Int? = nil, column: Int? = nil, reason: String) {
        self.source = source
        self.line = line
        self.column = column
        self.reason = reason
    }

    /// `scan.jsonl: line 3, column 17: expected ',' or '}' after the value of "major"`.
    public var description: String {
        var location = source
        if let line {
            location += ": line \(line)"
            if let column { location += ", column \(column)" }
        }
        return "\(location): \(reason)"
    }
}
