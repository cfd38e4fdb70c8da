@testable import AttestGuardEngine
import AttestVocabulary
import Testing

@Suite("Input limits: identifiers")
struct IdentifierTests {
    @Test("printable identifiers pass, ASCII or not", arguments: [
        "alice", "user-42@example.com", " spaced out ", String(repeating: "a", count: 256), "Zoë", "用户", "🙂",
        String(repeating: "é", count: 128),
    ])
    func accepted(_ value: String) throws {
        _ = try Identifier(value, field: "userId")
    }

    @Test("empty is missing_field; control, invisible or too long is invalid_field", arguments: [
        ("", "missing_field"),
        ("tab\there", "invalid_field"),
        ("nul\u{0}", "invalid_field"),
        ("del\u{7F}", "invalid_field"),
        ("zero\u{200B}width", "invalid_field"),
        ("soft\u{AD}hyphen", "invalid_field"),
        ("line\u{85}next", "invalid_field"),
        (String(repeating: "a", count: 257), "invalid_field"),
        (String(repeating: "é", count: 129), "invalid_field"),
        (String(repeating: "用", count: 86), "invalid_field"),
    ])
    func rejected(_ value: String, code: String) {
        #expect {
            _ = try Identifier(value, field: "userId")
        } throws: { error in
            (error as? EngineError)?.code.rawValue == code && "\(error)".contains("userId")
        }
    }

    static let composed = "Ren\u{E9}e"  // NFC: é is one scalar
    static let decomposed = "Rene\u{301}e"  // NFD: e and a combining acute accent

    @Test("the NFC and NFD forms of one name are two identifiers, two velocity subjects and two rollout users")
    func canonicalEquivalentsStayApart() throws {
        #expect(Self.composed == Self.decomposed, "Swift's String == calls them equal: the trap this guards against")
        let nfc = try Identifier(Self.composed, field: "userId")
        let nfd = try Identifier(Self.decomposed, field: "userId")
        #expect(nfc != nfd)
        #expect(Set([nfc, nfd]).count == 2)
        #expect([nfc: 1, nfd: 2].count == 2)
        let keying = VelocityKeying.publicTestKey
        #expect(keying.hash(VelocitySubjects(user: nfc.value)).user != keying.hash(VelocitySubjects(user: nfd.value)).user)
        let appId = "ABCDE12345.com.example.attestguard"
        #expect(RolloutBucket.of(appId: appId, userId: nfc.value) != RolloutBucket.of(appId: appId, userId: nfd.value))
    }

    @Test("app ids are ASCII TEAMID.bundle.id of at most 166 bytes")
    func appIdGrammar() {
        #expect(AppCatalog.isWellFormed(appId: "ABCDE12345.com.example.shop"))
        #expect(!AppCatalog.isWellFormed(appId: "ABCDE12345.com.example.caf\u{E9}"))
        #expect(!AppCatalog.isWellFormed(appId: "ABCDE12345.com.example shop"))
        #expect(!AppCatalog.isWellFormed(appId: "ABCDE12345." + String(repeating: "a", count: 160)))
        #expect(!AppCatalog.isWellFormed(appId: "nodot"))
        for appId in [".A", "A.", ".", "..", "A..b", "A.b", ".A.", "A.b.", String(repeating: "a", count: 165) + ".", "A." + String(repeating: "b", count: 164)] {
            #expect(AppIdGrammar.isWellFormed(appId) == Self.wellFormedBySplitting(appId), "\(appId)")
        }
    }

    /// The grammar as first written, splitting the id: what the one-pass check must equal.
    static func wellFormedBySplitting(_ appId: String) -> Bool {
        appId.utf8.count <= AppIdGrammar.maximumLength && appId.utf8.allSatisfy { (0x21..<0x7F).contains($0) }
            && appId.split(separator: ".").count >= 2
    }

    @Test("the one-pass app id check equals the splitting one on random text: dots anywhere, spaces, DEL, non-ASCII, any length")
    func appIdGrammarRandom() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Character] = [".", ".", ".", "A", "b", "9", "-", " ", "\u{7F}", "\u{1F}", "é", "~", "!"]
        for _ in 0..<20_000 {
            let length = Bool.random(using: &generator) ? Int.random(in: 0...8, using: &generator) : Int.random(in: 160...170, using: &generator)
            let appId = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            #expect(AppIdGrammar.isWellFormed(appId) == Self.wellFormedBySplitting(appId), "\(appId.debugDescription)")
        }
    }
}
