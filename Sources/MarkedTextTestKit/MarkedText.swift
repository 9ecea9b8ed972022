/// Text with positions marked in it, for tests that assert where a diagnostic points (as
/// swift-format's tests mark their inputs).
///
/// `⟨code⟩` right before a key or value says "something with this code starts here";
/// several codes separate with commas (`⟨duplicate-id,duplicate-identity⟩`). `⟨#name⟩`
/// names a position without expecting anything there. Markers take no room: lines and
/// columns are those of the text with every marker removed, counted from 1 in Unicode
/// scalars (as libyaml counts them).
public struct MarkedText: Sendable {
    /// One expected code at one position.
    public struct Mark: Hashable, Comparable, Sendable, CustomStringConvertible {
        public var line: Int
        public var column: Int
        public var code: String

        public init(line: Int, column: Int, code: String) {
            self.line = line
            self.column = column
            self.code = code
        }

        public var description: String { "\(line):\(column) \(code)" }

        public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.line, lhs.column, lhs.code) < (rhs.line, rhs.column, rhs.code) }
    }

    /// The text without its markers.
    public let text: String
    /// The `⟨code⟩` marks, in the order they appear.
    public let marks: [Mark]
    /// The `⟨#name⟩` positions, by name.
    public let positions: [String: (line: Int, column: Int)]

    public init(_ marked: String) {
        var text = ""
        var marks: [Mark] = []
        var positions: [String: (line: Int, column: Int)] = [:]
        var line = 1
        var column = 1
        var marker: String?
        for scalar in marked.unicodeScalars {
            if var open = marker {
                if scalar == "⟩" {
                    if open.hasPrefix("#") {
                        positions[String(open.dropFirst())] = (line, column)
                    } else {
                        for code in open.split(separator: ",") {
                            marks.append(Mark(line: line, column: column, code: String(code)))
                        }
                    }
                    marker = nil
                } else {
                    open.unicodeScalars.append(scalar)
                    marker = open
                }
                continue
            }
            if scalar == "⟨" {
                marker = ""
                continue
            }
            text.unicodeScalars.append(scalar)
            if scalar == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        self.text = text
        self.marks = marks
        self.positions = positions
    }

    /// The text without its markers, in UTF-8.
    public var bytes: [UInt8] { Array(text.utf8) }
}
