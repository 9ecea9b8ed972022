/// One cell of a CSV file, with the place it starts at (1-based line and column, columns
/// counting characters as editors do) so a complaint about its value can point at it.
struct CSVCell: Equatable, Sendable {
    var text: String
    var line: Int
    var column: Int
}

/// One record: the cells of a row, and the line the row starts on (a quoted cell may
/// continue over several lines).
struct CSVRecord: Equatable, Sendable {
    var line: Int
    var cells: [CSVCell]
}

/// Why a CSV text could not be split into records, and where.
struct CSVSyntaxError: Error, Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        /// A quoted cell runs to the end of the text.
        case unterminatedQuote
        /// A quote inside a cell that does not start with one.
        case quoteInUnquotedCell
        /// Something other than a comma or a line break right after a closing quote.
        case textAfterClosingQuote(Character)
    }

    var kind: Kind
    var line: Int
    var column: Int

    var message: String {
        switch kind {
        case .unterminatedQuote:
            return "quoted cell is never closed; add the closing \" (a quote inside a quoted cell is written \"\")"
        case .quoteInUnquotedCell:
            return "a quote inside an unquoted cell; enclose the whole cell in quotes and write the quote as \"\""
        case .textAfterClosingQuote(let character):
            return "'\(character)' after the closing quote of a cell; a closing quote must be followed by a comma or the end of the line (a quote inside a quoted cell is written \"\")"
        }
    }
}

/// Splits CSV text into records following RFC 4180 section 2: cells separated by commas,
/// a cell that contains a comma, a quote or a line break enclosed in double quotes, a quote
/// inside such a cell written twice.
///
/// Lenient where spreadsheets differ from the RFC without ambiguity: LF and lone CR end a
/// record as CRLF does, a leading UTF-8 byte order mark is skipped, and empty lines are
/// ignored. Strict where a guess could silently change a value: a quote inside an unquoted
/// cell, text after a closing quote and a quote left open are errors.
enum CSVReader {
    static func records(in text: String) -> Result<[CSVRecord], CSVSyntaxError> {
        var scanner = Scanner(text: text)
        return scanner.run()
    }

    private struct Scanner {
        private let characters: [Character]
        private var index = 0
        private var line = 1
        private var column = 1
        private var records: [CSVRecord] = []
        private var cells: [CSVCell] = []
        private var recordLine = 1

        init(text: String) {
            var scalars = Substring(text).unicodeScalars[...]
            if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
            self.characters = Array(Substring(scalars))
        }

        private static let quote: Character = "\""
        private static let comma: Character = ","

        private var current: Character? { index < characters.count ? characters[index] : nil }

        /// Moves past one character. CRLF is a single `Character` in Swift, so each line
        /// break, whatever its convention, counts once.
        private mutating func advance() {
            guard let character = current else { return }
            index += 1
            if Self.isLineBreak(character) {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }

        private static func isLineBreak(_ character: Character) -> Bool {
            character == "\n" || character == "\r\n" || character == "\r"
        }

        mutating func run() -> Result<[CSVRecord], CSVSyntaxError> {
            while current != nil {
                // A line with nothing on it is not a record of one empty cell.
                if cells.isEmpty, let character = current, Self.isLineBreak(character) {
                    advance()
                    continue
                }
                if cells.isEmpty { recordLine = line }
                let cell: CSVCell
                switch readCell() {
                case .success(let read): cell = read
                case .failure(let error): return .failure(error)
                }
                cells.append(cell)
                switch current {
                case Self.comma?:
                    advance()
                    // A comma at the very end of the text still opens one more, empty, cell.
                    if current == nil { cells.append(CSVCell(text: "", line: line, column: column)) }
                case let character? where Self.isLineBreak(character):
                    advance()
                    endRecord()
                case nil:
                    break
                case let character?:
                    return .failure(CSVSyntaxError(kind: .textAfterClosingQuote(character), line: line, column: column))
                }
            }
            endRecord()
            return .success(records)
        }

        private mutating func endRecord() {
            guard !cells.isEmpty else { return }
            records.append(CSVRecord(line: recordLine, cells: cells))
            cells = []
        }

        private mutating func readCell() -> Result<CSVCell, CSVSyntaxError> {
            let startLine = line
            let startColumn = column
            var text = ""
            if current == Self.quote {
                advance()
                while true {
                    guard let character = current else {
                        return .failure(CSVSyntaxError(kind: .unterminatedQuote, line: startLine, column: startColumn))
                    }
                    advance()
                    if character == Self.quote {
                        guard current == Self.quote else { break }
                        advance()
                    }
                    text.append(character)
                }
            } else {
                while let character = current, character != Self.comma, !Self.isLineBreak(character) {
                    if character == Self.quote {
                        return .failure(CSVSyntaxError(kind: .quoteInUnquotedCell, line: line, column: column))
                    }
                    text.append(character)
                    advance()
                }
            }
            return .success(CSVCell(text: text, line: startLine, column: startColumn))
        }
    }
}
