@testable import AttestGuardEngine
import Testing

@Suite("Input limits: identifiers")
struct IdentifierTests {
    @Test("printable identifiers pass, ASCII or not", arguments: [
        "alice", "user-42@example.com", " spaced out ", String(repeating: "a", count: 256), "Zoë", "用户", "🙂",
        String(repeating: "é", count: 256),
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
        (String(repeating: "é", count: 257), "invalid_field"),
    ])
    func rejected(_ value: String, code: String) {
        #expect {
            _ = try Identifier(value, field: "userId")
        } throws: { error in
            (error as? EngineError)?.code.rawValue == code && "\(error)".contains("userId")
        }
    }
}
