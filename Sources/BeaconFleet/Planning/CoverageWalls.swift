import BeaconCore


/// Walls for coverage maps, read from a small text file kept next to the manifest (the
/// manifest schema has no place for walls: they describe a building, not a fleet).
///
/// One line per wall, or per run of connected walls:
///
///     # venue       from     to       [more points…]  loss
///     modern-art    7,0      7,8                      12dB   # west room, north of the door
///     modern-art    19,0     19,20    28,20           4 dB   # plasterboard, around a corner
///
/// Points are `x,y` in metres from the plan's top-left corner; the loss is in dB, taken from
/// every path that crosses the wall (3–5 dB plasterboard or glass, 10–15 dB brick or
/// concrete). `#` starts a comment. A venue may have any number of lines.
public struct CoverageWalls: Hashable, Sendable {
    /// Walls per venue id, in file order.
    public var walls: [String: [Obstacle]]

    public init(walls: [String: [Obstacle]] = [:]) {
        self.walls = walls
    }

    public func walls(for venueID: String) -> [Obstacle] { walls[venueID] ?? [] }

    /// A problem in a walls file, at a 1-based line and column.
    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        public var file: String
        public var line: Int
        public var column: Int
        public var message: String

        public var description: String { "\(file):\(line):\(column): error: \(message)" }
    }

    /// The largest loss one wall is believed to take: beyond this a typo (`120` for `12`) is
    /// likelier than a wall, and no BLE signal would cross it anyway.
    public static let maximumLoss = 60.0

    /// Every problem of a walls file, not only the first.
    public struct ParseFailure: Error, Hashable, Sendable {
        public var errors: [ParseError]
    }

    /// Reads a walls file's text; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(ParseFailure) -> CoverageWalls {
        var result = CoverageWalls()
        var errors: [ParseError] = []
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            switch parseLine(line, number: offset + 1, file: file) {
            case .success(let parsed?): result.walls[parsed.venue, default: []].append(contentsOf: parsed.obstacles)
            case .success(nil): continue
            case .failure(let error): errors.append(error)
            }
        }
        guard errors.isEmpty else { throw ParseFailure(errors: errors) }
        return result
    }

    private struct Token {
        var text: Substring
        var column: Int
    }

    /// Whitespace-separated tokens up to a `#` comment, with their 1-based columns.
    private static func tokens(of line: Substring) -> [Token] {
        var tokens: [Token] = []
        var current: Substring.Index?
        var currentColumn = 0
        var column = 0
        for index in line.indices {
            column += 1
            let character = line[index]
            if character == " " || character == "\t" {
                if let start = current { tokens.append(Token(text: line[start..<index], column: currentColumn)) }
                current = nil
            } else if character == "#" && current == nil {
                return tokens
            } else if current == nil {
                current = index
                currentColumn = column
            }
        }
        if let start = current { tokens.append(Token(text: line[start...], column: currentColumn)) }
        return tokens
    }

    private static func parseLine(
        _ line: Substring, number: Int, file: String
    ) -> Result<(venue: String, obstacles: [Obstacle])?, ParseError> {
        var tokens = tokens(of: line)
        guard let venue = tokens.first else { return .success(nil) }
        func failure(_ column: Int, _ message: String) -> Result<(venue: String, obstacles: [Obstacle])?, ParseError> {
            .failure(ParseError(file: file, line: number, column: column, message: message))
        }
        let endColumn = line.count + 1
        // `12 dB` as well as `12dB`.
        if let last = tokens.last, last.text.lowercased() == "db", tokens.count > 1 { tokens.removeLast() }
        guard tokens.count >= 4, let lossToken = tokens.last else {
            return failure(
                tokens.count > 1 ? tokens[tokens.count - 1].column : endColumn,
                "a wall needs a venue id, at least two points `x,y` and a loss in dB, e.g. `\(venue.text) 7,0 7,8 12dB`")
        }
        let lossText = lossToken.text.lowercased().hasSuffix("db") ? lossToken.text.dropLast(2) : lossToken.text
        guard let loss = Double(lossText), loss.isFinite, loss >= 0, loss <= maximumLoss else {
            return failure(
                lossToken.column,
                "`\(lossToken.text)` is not a wall loss: write the dB a signal loses crossing the wall, 0 to \(Int(maximumLoss)) (e.g. `12dB` for brick)")
        }
        var points: [PlanPoint] = []
        for token in tokens.dropFirst().dropLast() {
            let parts = token.text.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let x = Double(parts[0]), let y = Double(parts[1]), x.isFinite, y.isFinite else {
                return failure(token.column, "`\(token.text)` is not a point: write `x,y` in metres without spaces, e.g. `7,0` or `12.5,3`")
            }
            let point = PlanPoint(x: x, y: y)
            if points.last == point {
                return failure(token.column, "the point \(token.text) repeats the one before it: a wall needs two different ends")
            }
            points.append(point)
        }
        let obstacles = zip(points, points.dropFirst()).map { Obstacle(from: $0, to: $1, attenuation: loss) }
        return .success((String(venue.text), obstacles))
    }
}
