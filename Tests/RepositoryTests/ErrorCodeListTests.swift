import AttestVocabulary
import Foundation
import Testing

/// The error-code registry (`ErrorCode`), the OpenAPI document's `ErrorCode` schema and the list in
/// `docs/reference/error-codes.md` name the same codes, so a client generated from the document or written from the list knows
/// every code.
struct ErrorCodeListTests {
    static let registry = Set(ErrorCode.allCases.map(\.rawValue))

    /// The items of the `enum:` of the `ErrorCode` schema in an OpenAPI document's text.
    static func openAPICodes(in document: String) -> [String] {
        let lines = document.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == "    ErrorCode:" }) else { return [] }
        var codes: [String] = []
        var inEnum = false
        for line in lines[(start + 1)...] {
            if !line.isEmpty, !line.hasPrefix("      ") { break }
            let text = line.trimmingCharacters(in: .whitespaces)
            if text == "enum:" {
                inEnum = true
            } else if inEnum, text.hasPrefix("- ") {
                codes.append(String(text.dropFirst(2)))
            } else if inEnum, !text.hasPrefix("#") {
                inEnum = false
            }
        }
        return codes
    }

    /// The backticked codes on the list lines (`- ...`) of a Markdown document.
    static func listedCodes(in markdown: String) -> [String] {
        markdown.split(separator: "\n").filter { $0.hasPrefix("- ") }.flatMap { line in
            line.matches(of: /`([a-z][a-z0-9_]*)`/).map { String($0.1) }
        }
    }

    @Test func openAPIDocumentListsExactlyTheRegisteredCodes() throws {
        let listed = Self.openAPICodes(in: try RepositoryFiles.text("OpenAPI/openapi.yaml"))
        #expect(listed.count == Set(listed).count, "a code is listed twice")
        #expect(Set(listed).subtracting(Self.registry).isEmpty, "listed but not registered: \(Set(listed).subtracting(Self.registry).sorted())")
        #expect(Self.registry.subtracting(listed).isEmpty, "registered but not listed: \(Self.registry.subtracting(listed).sorted())")
    }

    @Test func errorCodePageListsExactlyTheRegisteredCodes() throws {
        let listed = Self.listedCodes(in: try RepositoryFiles.text("docs/reference/error-codes.md"))
        #expect(listed.count == Set(listed).count, "a code is listed twice")
        #expect(Set(listed).subtracting(Self.registry).isEmpty, "listed but not registered: \(Set(listed).subtracting(Self.registry).sorted())")
        #expect(Self.registry.subtracting(listed).isEmpty, "registered but not listed: \(Self.registry.subtracting(listed).sorted())")
    }

    @Test func listsAreReadFromTheirSections() {
        let document = """
                ErrorCode:
                  type: string
                  enum:
                    # Group
                    - malformed_json
                    - rate_limited
                  examples: [missing_field]
                AppId:
                  enum:
                    - other
            """
        #expect(Self.openAPICodes(in: document) == ["malformed_json", "rate_limited"])
        let page = "# Error codes\n\nSee `ErrorCode` and `ErrorCode.allCases`.\n\n- A: `a_b`, `c`.\n- B (400): `d`, `Not_a_code`.\n"
        #expect(Self.listedCodes(in: page) == ["a_b", "c", "d"])
        #expect(Self.registry.contains("nonce_mismatch") && Self.registry.count == ErrorCode.allCases.count)
    }

    @Test func registeredCodesAreSnakeCaseAndRoundTrip() {
        for code in ErrorCode.allCases {
            #expect(code.rawValue.wholeMatch(of: /[a-z][a-z0-9]*(_[a-z0-9]+)*/) != nil, "\(code)")
            #expect(ErrorCode(rawValue: code.rawValue) == code)
            #expect(code.description == code.rawValue)
        }
        #expect(ErrorCode(rawValue: "no_such_code") == nil)
    }
}
