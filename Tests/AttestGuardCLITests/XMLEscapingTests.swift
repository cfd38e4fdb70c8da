import AttestGuardCLI
import Testing

/// The escaping behind `rules lint|test --format junit`: markup as entity references, whitespace that survives a
/// parser's normalisation, and what XML 1.0 forbids left out. `RulesOutputFormatTests` reads the result with
/// junitparser.
struct XMLEscapingTests {
    static let markup = #"a<b>&"c"'d'"#

    @Test func markupBecomesEntityReferences() {
        #expect(XMLEscaping.attribute(Self.markup) == "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;")
        #expect(XMLEscaping.content(Self.markup) == #"a&lt;b&gt;&amp;"c"'d'"#)
        #expect(XMLEscaping.content("]]>") == "]]&gt;")
        #expect(XMLEscaping.content("&amp;") == "&amp;amp;")
    }

    @Test func whitespaceSurvivesNormalisation() {
        #expect(XMLEscaping.attribute("a\tb\nc\rd\r\ne") == "a&#9;b&#10;c&#13;d&#13;&#10;e")
        #expect(XMLEscaping.content("a\tb\nc\rd\r\ne") == "a\tb\nc&#13;d&#13;\ne")
    }

    /// Code points, so that the test cases' names print.
    static let forbidden: [UInt32] = (0..<0x20).filter { ![0x9, 0xA, 0xD].contains($0) } + [0xFFFE, 0xFFFF]

    @Test(arguments: forbidden)
    func forbiddenCharactersAreLeftOut(_ value: UInt32) throws {
        let scalar = try #require(Unicode.Scalar(value))
        #expect(!XMLEscaping.isAllowed(scalar))
        #expect(XMLEscaping.content("a\(scalar)b") == "ab")
        #expect(XMLEscaping.attribute("a\(scalar)<") == "a&lt;")
    }

    @Test func everythingElsePassesUnchanged() {
        let text = "plain é ß 漢字 😀 \u{7F}\u{85}\u{A0}\u{D7FF}\u{E000}\u{FFFD}\u{10000}\u{10FFFF}"
        #expect(XMLEscaping.content(text) == text)
        #expect(XMLEscaping.attribute(text) == text)
        #expect(XMLEscaping.content("") == "")
    }
}
