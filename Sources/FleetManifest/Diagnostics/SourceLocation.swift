/// A position in a manifest file: 1-based line and column (columns count characters, not
/// bytes, as editors do).
///
/// Line 0 means "the file as a whole" (for example a file that cannot be read); such a
/// location prints as the file name alone.
public struct SourceLocation: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// The location of a whole file rather than a position inside it.
    public static func wholeFile(_ file: String) -> SourceLocation {
        SourceLocation(file: file, line: 0, column: 0)
    }

    /// `file:line:col`, the form compilers print and editors jump to; `file` alone for line 0.
    public var description: String {
        line == 0 ? file : "\(file):\(line):\(column)"
    }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        if lhs.file != rhs.file { return lhs.file < rhs.file }
        if lhs.line != rhs.line { return lhs.line < rhs.line }
        return lhs.column < rhs.column
    }
}
