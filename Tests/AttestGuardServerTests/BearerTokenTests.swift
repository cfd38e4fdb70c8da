@testable import AttestGuardServer
import Testing

/// `Authorization: Bearer <token>` read by bytes (``APIKeyMiddleware/bearerToken(in:)``), held equal to a reading
/// by Characters (``byCharacters(_:)``).
@Suite("Bearer token")
struct BearerTokenTests {
    /// The reading by Characters: at least eight characters, the first seven `bearer ` in any case.
    static func byCharacters(_ header: String) -> String? {
        guard header.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
        return String(header.dropFirst(7))
    }

    static let headers = [
        "Bearer abc", "bearer abc", "BEARER abc", "bEaReR k-1_2.3", "Bearer  two spaces", "Bearer é", "Bearer 🔑",
        "Bearer ", "Bearer", "Bear", "", "Basic abc", "Bearerabc", "Bearer\tabc", "Bearer\u{0}abc", "Bearer:abc",
        "Bearez abc", "Bearer abc ", " Bearer abc", "Beaer abc", "Be\u{301}arer abc", "bearer ab\r\n",
    ]

    @Test("each header reads as the Character-based reading did", arguments: headers)
    func sameAsCharacters(header: String) {
        #expect(APIKeyMiddleware.bearerToken(in: header) == Self.byCharacters(header))
    }

    @Test("the token follows the scheme in any case; no scheme or an empty token is nothing")
    func tokens() {
        #expect(APIKeyMiddleware.bearerToken(in: "Bearer abc") == "abc")
        #expect(APIKeyMiddleware.bearerToken(in: "BEARER abc") == "abc")
        #expect(APIKeyMiddleware.bearerToken(in: "Bearer  abc") == " abc")
        #expect(APIKeyMiddleware.bearerToken(in: "Bearer ") == nil)
        #expect(APIKeyMiddleware.bearerToken(in: "Basic abc") == nil)
        #expect(APIKeyMiddleware.bearerToken(in: "Bearer\u{0}abc") == nil)
        // A combining mark after the space: read by Characters the scheme does not match; read by bytes the mark is
        // the token, which no API key equals (refused all the same).
        #expect(APIKeyMiddleware.bearerToken(in: "Bearer \u{301}") == "\u{301}")
    }
}
