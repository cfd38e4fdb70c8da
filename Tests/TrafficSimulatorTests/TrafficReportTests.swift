import AttestVocabulary
import Foundation
import Testing
@testable import TrafficSimulator

/// A persona matches only when every checked request got the expected outcome; the report says which did not.
struct TrafficReportTests {
    static let farmDeny = ObservedOutcome.verdict(ObservedVerdict(decision: .deny, score: 90, ruleIds: ["key-farm", "new-keys-burst"]))
    static let farmAllow = ObservedOutcome.verdict(ObservedVerdict(decision: .allow, score: 30, ruleIds: ["new-keys-burst"]))

    @Test("a verdict meets an expectation by decision, every named rule and the score when one is named")
    func expectations() {
        let farm = ExpectedOutcome.verdict(.deny, firing: ["key-farm", "new-keys-burst"])
        #expect(farm.isMet(by: Self.farmDeny))
        #expect(!farm.isMet(by: .verdict(ObservedVerdict(decision: .deny, score: 90, ruleIds: ["key-farm"]))))
        #expect(!farm.isMet(by: Self.farmAllow))
        #expect(!farm.isMet(by: .error(status: 409, code: ErrorCode.assertionAlreadyAccepted.rawValue)))
        let scored = ExpectedOutcome.verdict(.allow, score: 30)
        #expect(scored.isMet(by: Self.farmAllow))
        #expect(!scored.isMet(by: .verdict(ObservedVerdict(decision: .allow, score: 20, ruleIds: []))))
        let replay = ExpectedOutcome.error(status: 409, code: .assertionAlreadyAccepted)
        #expect(replay.isMet(by: .error(status: 409, code: ErrorCode.assertionAlreadyAccepted.rawValue)))
        #expect(!replay.isMet(by: .error(status: 422, code: ErrorCode.assertionAlreadyAccepted.rawValue)))
        #expect(!replay.isMet(by: .unexpected("timed out")))
    }

    @Test("one unexpected outcome among many fails the persona and is listed first")
    func oneMismatchFails() throws {
        let result = PersonaResult(persona: .farm, expected: PersonaExpectations.expected(for: .farm), outcomes: [Self.farmDeny, Self.farmAllow, Self.farmDeny])
        #expect(!result.matched)
        #expect(result.actual == "allow (score 30); deny (score 90) x2")
        #expect(result.topReasons == ["new-keys-burst", "key-farm"])
        let empty = PersonaResult(persona: .burst, expected: PersonaExpectations.expected(for: .burst), outcomes: [])
        #expect(!empty.matched, "a persona with nothing checked has not shown anything")

        let report = TrafficReport([result, PersonaResult(persona: .replayer, expected: PersonaExpectations.expected(for: .replayer),
                                                          outcomes: [.error(status: 409, code: ErrorCode.assertionAlreadyAccepted.rawValue)])])
        #expect(!report.allMatched)
        #expect(report.text.hasSuffix("UNEXPECTED outcomes for: farm\n"))
        let rows = try JSONDecoder().decode([TrafficReport.Row].self, from: try report.json())
        #expect(rows.map(\.persona) == ["farm", "replayer"])
        #expect(rows.map(\.matched) == [false, true])
    }

    @Test("every persona has an expectation that names typed codes and the shipped rules' ids")
    func expectationsNameShippedRules() throws {
        let rules = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Rules/default.yaml"), encoding: .utf8)
        for persona in Persona.allCases {
            if case .verdict(_, let firing, _) = PersonaExpectations.expected(for: persona) {
                for rule in firing { #expect(rules.contains("- id: \(rule)\n"), "\(persona) expects \(rule), which Rules/default.yaml lacks") }
            }
        }
    }
}
