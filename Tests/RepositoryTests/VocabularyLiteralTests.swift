import AttestVocabulary
import Foundation
import Testing

/// The shared vocabulary is typed: outside `Sources/AttestVocabulary`, no source spells a registered error code,
/// a decision, an environment, a receipt type or a fixed signal's name as a string literal. A misspelled literal would compile and
/// silently never match; the typed constant cannot be misspelled.
struct VocabularyLiteralTests {
    /// The texts no literal may equal, each with the vocabulary type that owns it.
    static let vocabulary: [String: String] = {
        var words: [String: String] = [:]
        for code in ErrorCode.allCases { words[code.rawValue] = "ErrorCode" }
        for decision in Decision.allCases { words[decision.rawValue] = "Decision" }
        for environment in AppAttestEnvironment.allCases { words[environment.rawValue] = "AppAttestEnvironment" }
        for type in [ReceiptType.attest, .receipt] { words[type.rawValue] = "ReceiptType" }
        for signal in FixedSignal.allCases { words[signal.rawValue] = "FixedSignal" }
        return words
    }()

    /// Files that hold vocabulary text by nature.
    static let exempt: Set<String> = [
        // The app's client links nothing of the server: its copy of the codes it acts on is held equal to the
        // registry by AttestGuardClientTests.ServerErrorCodeTests.
        "Sources/AttestGuardClient/Routes/ServerErrorCode.swift",
    ]

    /// Literals that equal a vocabulary word but mean something else, each with what it means.
    static let otherMeanings: [String: Set<String>] = [
        // A DeviceCheck query's result label in metrics: Apple holds no bits for the device.
        "Sources/AttestGuardEngine/DeviceCheck/DeviceCheckService.swift": ["not_found"],
        // A receipt refresh's tally label: Apple refused the provider token of a redemption.
        "Sources/AttestGuardEngine/Receipts/ReceiptRefresher.swift": ["unauthorized"],
        // A PostgreSQL URL's sslmode.
        "Sources/AttestGuardPostgres/PostgresStoreConfiguration.swift": ["allow"],
        // Field paths of the assertion body in error messages, spelled like the signals they feed.
        "Sources/AttestGuardServer/Wire/WireFields.swift": ["request.ip", "request.action"],
        "Sources/AttestGuardEngine/Input/WireBodies+Engine.swift": ["request.ip"],
        // The client's own error code for a revoked key, named as the server's refusal it surfaces.
        "Sources/AttestGuardClient/Client/AttestGuardClientError.swift": ["key_revoked"],
        // Codes of rule-file problems (`rules lint`, the reload route), a domain of their own.
        "Sources/PolicyFiles/PolicyFileProblem.swift": ["invalid_field", "missing_field"],
        // An attestation attempt's stored outcome (the rollout ramp's counter): Apple answered serverUnavailable.
        "Sources/AttestGuardStore/Model/AttestationRampRecord.swift": ["rate_limited"],
    ]

    /// The single-line string literals of a Swift source, outside `//` comment lines.
    static func literals(in source: String) -> [(line: Int, text: String)] {
        var found: [(Int, String)] = []
        for (index, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.drop(while: { $0 == " " }).hasPrefix("//") { continue }
            found += quoted(in: line).map { (index + 1, $0) }
        }
        return found
    }

    /// The contents of each `"…"` on one line, escapes kept as written (`\"` does not end a literal). A scan rather
    /// than a regex: a regex literal in the loop is compiled again for each of the sources' lines, seconds of a
    /// cooperative thread the suite's other tests wait for.
    static func quoted(in line: Substring) -> [String] {
        var found: [String] = []
        var text = ""
        var inside = false
        var escaped = false
        for character in line {
            if !inside {
                inside = character == "\""
            } else if escaped {
                text.append(character)
                escaped = false
            } else if character == "\"" {
                found.append(text)
                text = ""
                inside = false
            } else {
                text.append(character)
                escaped = character == "\\"
            }
        }
        return found
    }

    @Test func sourcesSpellNoVocabularyWordAsALiteral() throws {
        let sources = try RepositoryFiles.tracked().filter {
            $0.hasPrefix("Sources/") && $0.hasSuffix(".swift") && !$0.hasPrefix("Sources/AttestVocabulary/") && !Self.exempt.contains($0)
        }
        #expect(sources.count > 100)
        for source in sources {
            for (line, text) in Self.literals(in: try RepositoryFiles.text(source)) {
                guard let owner = Self.vocabulary[text], !(Self.otherMeanings[source]?.contains(text) ?? false) else { continue }
                Issue.record("\(source):\(line) spells \"\(text)\": use \(owner)")
            }
        }
    }

    @Test func literalsAreFoundOutsideCommentLines() {
        let source = """
            throw EngineError.invalid("missing_field", "userId is required")
            // "deny" in a comment
            let decision = review ? "review" : "allow"
            let escaped = "say \\"deny\\""
            """
        #expect(Self.literals(in: source).map(\.text) == ["missing_field", "userId is required", "review", "allow", #"say \"deny\""#])
        #expect(Self.vocabulary["missing_field"] != nil && Self.vocabulary["ATTEST"] == "ReceiptType")
        #expect(Self.vocabulary["production"] == "AppAttestEnvironment" && Self.vocabulary["deny"] == "Decision")
        #expect(Self.vocabulary["receipt.risk_metric"] == "FixedSignal")
    }
}
