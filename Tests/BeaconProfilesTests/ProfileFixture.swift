import Foundation
import Testing

/// Profile text with the expected problems marked where they must point, as the manifest
/// fixtures are marked: `⟨code⟩` right before a key or value says "a problem with this code
/// starts here" (several separate with commas). Markers take no room: lines and columns
/// are those of the text without them.
struct ProfileFixture {
    struct Expectation: Hashable, Comparable, CustomStringConvertible {
        var line: Int
        var column: Int
        var code: String
        var description: String { "\(line):\(column) \(code)" }
        static func < (lhs: Self, rhs: Self) -> Bool { (lhs.line, lhs.column, lhs.code) < (rhs.line, rhs.column, rhs.code) }
    }

    let text: String
    let expectations: [Expectation]

    init(_ marked: String) {
        var text = ""
        var expectations: [Expectation] = []
        var line = 1
        var column = 1
        var marker: String?
        for scalar in marked.unicodeScalars {
            if var open = marker {
                if scalar == "⟩" {
                    for code in open.split(separator: ",") { expectations.append(Expectation(line: line, column: column, code: String(code))) }
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
        self.expectations = expectations.sorted()
    }

    var bytes: [UInt8] { Array(text.utf8) }

    static func resource(_ name: String) throws -> ProfileFixture {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"))
        return ProfileFixture(try String(contentsOf: url, encoding: .utf8))
    }
}
