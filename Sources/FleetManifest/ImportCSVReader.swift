/// One cell of a CSV file, with the place it starts at so a complaint about its value can
/// point at it: 1-based line and column, columns counting Unicode scalars as the manifest
/// loader's do.
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
///
/// Works on UTF-8 bytes: every delimiter is ASCII, and no byte of a multi-byte UTF-8
/// sequence is ASCII, so a delimiter can never be found inside another character.
enum CSVReader {
    static func records(in text: String) -> Result<[CSVRecord], CSVSyntaxError> {
        let bytes = Array(text.utf8)
        var scanner = Scanner(bytes: Array(bytes.dropFirst(ByteOrderMark.utf8Length(of: bytes))))
        return scanner.run()
    }

    private struct Scanner {
        private let bytes: [UInt8]
        private var index = 0
        private var line = 1
        private var column = 1
        private var records: [CSVRecord] = []
        private var cells: [CSVCell] = []
        private var recordLine = 1

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        private static let quote = UInt8(ascii: "\"")
        private static let comma = UInt8(ascii: ",")
        private static let lineFeed = UInt8(ascii: "\n")
        private static let carriageReturn = UInt8(ascii: "\r")

        private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        private static func isLineBreak(_ byte: UInt8) -> Bool { byte == lineFeed || byte == carriageReturn }

        /// Moves past one byte. CRLF counts as one line break; a UTF-8 continuation byte
        /// (10xxxxxx) does not start a new column.
        private mutating func advance() {
            guard let byte = current else { return }
            index += 1
            if byte == Self.lineFeed || (byte == Self.carriageReturn && current != Self.lineFeed) {
                line += 1
                column = 1
            } else if byte != Self.carriageReturn && byte & 0xC0 != 0x80 {
                column += 1
            }
        }

        mutating func run() -> Result<[CSVRecord], CSVSyntaxError> {
            while let byte = current {
                // A line with nothing on it is not a record of one empty cell.
                if cells.isEmpty, Self.isLineBreak(byte) {
                    advance()
                    continue
                }
                if cells.isEmpty { recordLine = line }
                switch readCell() {
                case .success(let cell): cells.append(cell)
                case .failure(let error): return .failure(error)
                }
                switch current {
                case Self.comma?:
                    advance()
                    // A comma at the very end of the text still opens one more, empty, cell.
                    if current == nil { cells.append(CSVCell(text: "", line: line, column: column)) }
                case let next? where Self.isLineBreak(next):
                    advance()
                    endRecord()
                case nil:
                    break
                case .some:
                    return .failure(CSVSyntaxError(
                        kind: .textAfterClosingQuote(characterAtIndex()), line: line, column: column))
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
            guard current == Self.quote else {
                let start = index
                while let byte = current, byte != Self.comma, !Self.isLineBreak(byte) {
                    if byte == Self.quote {
                        return .failure(CSVSyntaxError(kind: .quoteInUnquotedCell, line: line, column: column))
                    }
                    advance()
                }
                let text = String(decoding: bytes[start..<index], as: UTF8.self)
                return .success(CSVCell(text: text, line: startLine, column: startColumn))
            }
            advance()
            var text: [UInt8] = []
            while true {
                guard let byte = current else {
                    return .failure(CSVSyntaxError(kind: .unterminatedQuote, line: startLine, column: startColumn))
                }
                advance()
                if byte == Self.quote {
                    guard current == Self.quote else { break }
                    advance()
                }
                text.append(byte)
            }
            return .success(CSVCell(text: String(decoding: text, as: UTF8.self), line: startLine, column: startColumn))
        }

        /// The whole character starting at the current byte, for messages.
        private func characterAtIndex() -> Character {
            var end = index + 1
            while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
            return String(decoding: bytes[index..<min(end, bytes.count)], as: UTF8.self).first ?? "?"
        }
    }
}
