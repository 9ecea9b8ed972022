import Foundation
import MarkedTextTestKit
import Testing

/// Profile text with the expected problems marked where they must point, as the manifest
/// fixtures are marked (`MarkedText`: `⟨code⟩` right before a key or value says "a problem
/// with this code starts here"); the expectations sorted by position.
struct ProfileFixture {
    typealias Expectation = MarkedText.Mark

    let text: String
    let expectations: [Expectation]

    init(_ marked: String) {
        let parsed = MarkedText(marked)
        text = parsed.text
        expectations = parsed.marks.sorted()
    }

    var bytes: [UInt8] { Array(text.utf8) }

    static func resource(_ name: String) throws -> ProfileFixture {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"))
        return ProfileFixture(try String(contentsOf: url, encoding: .utf8))
    }
}
