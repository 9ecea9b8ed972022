import Testing
@testable import BeaconCore

@Suite("JSON and XML text")
struct TextEscapingTests {
    @Test func jsonEscapesQuotesBackslashesAndControls() {
        #expect(JSONText.stringLiteral("plain") == "\"plain\"")
        #expect(JSONText.stringLiteral("a\"b\\c") == "\"a\\\"b\\\\c\"")
        #expect(JSONText.stringLiteral("line\nnext\ttab\r") == "\"line\\nnext\\ttab\\r\"")
        #expect(JSONText.stringLiteral("\u{0}\u{1B}\u{1F}") == "\"\\u0000\\u001B\\u001F\"")
        #expect(JSONText.stringLiteral("Café ☕︎ – 🍩") == "\"Café ☕︎ – 🍩\"")
    }

    @Test func xmlEscapesMarkupAndDropsWhatXMLCannotCarry() {
        #expect(XMLText.escaped("<a href=\"x\">Tom & Jerry's</a>", inAttribute: false)
            == "&lt;a href=\"x\"&gt;Tom &amp; Jerry's&lt;/a&gt;")
        #expect(XMLText.escaped("\"it's\"", inAttribute: true) == "&quot;it&apos;s&quot;")
        #expect(XMLText.escaped("a\tb\nc", inAttribute: true) == "a&#9;b&#10;c")
        #expect(XMLText.escaped("a\tb\nc", inAttribute: false) == "a\tb\nc")
        #expect(XMLText.escaped("bell\u{7}\u{FFFE}", inAttribute: false) == "bell\u{FFFD}\u{FFFD}")
    }
}
