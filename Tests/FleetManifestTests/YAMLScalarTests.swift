import FleetManifest
import Testing

/// The one quoter of everything beaconctl writes into manifests.
@Suite("YAML scalars written into manifests")
struct YAMLScalarTests {
    @Test(
        "plain only when nothing else can be read into it",
        arguments: [
            ("door", "door"), ("pi-cupertino", "pi-cupertino"), ("Main Hall 2", "Main Hall 2"),
            // Where two quoters once differed: letters of any script stay plain, a carriage
            // return is escaped as \r.
            ("Café du Monde", "Café du Monde"), ("Zürich", "Zürich"), ("a\rb", "\"a\\rb\""),
            ("yes", "\"yes\""), ("Off", "\"Off\""), ("~", "\"~\""), ("", "\"\""), ("trailing ", "\"trailing \""),
            ("a: b", "\"a: b\""), ("#tag", "\"#tag\""), ("say \"hi\"", "\"say \\\"hi\\\"\""), ("line\nbreak", "\"line\\nbreak\""),
            ("bell\u{7}", "\"bell\\u0007\""), ("7th", "\"7th\""),
        ])
    func render(text: String, expected: String) {
        #expect(YAMLScalar.render(text) == expected)
    }
}
