@testable import AttestGuardRuntime
@testable import AttestGuardServer
import AttestGuardEngine
import Foundation
import RiskRules
import Testing

/// The score response is written by hand: these pin its exact text, which is what `JSONEncoder` with sorted keys
/// and unescaped slashes wrote before.
@Suite("Score response JSON")
struct ScoreResponseJSONTests {
    static func text(_ verdict: RiskVerdict, _ signals: [String: SignalValue?]) -> String {
        String(decoding: ScoreResponseJSON.bytes(verdict: verdict, signals: signals.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }), as: UTF8.self)
    }

    @Test("every field and signal type, keys sorted by bytes, strings escaped, slashes not")
    func everyField() throws {
        let verdict = RiskVerdict(
            decision: .allow, score: 62.5,
            reasons: [
                RiskVerdict.Reason(ruleId: "key-farm", score: 60, message: #"device has "12" keys\in 30 days/ok"#),
                RiskVerdict.Reason(ruleId: "tab\tline\nbell\u{07}", score: 2.5, message: "é ✓"),
            ],
            ruleSetVersion: "sha256:0123", enforced: false, ruleDecision: .review
        )
        let signals: [String: SignalValue?] = [
            "request.action": .string("claim/promo"), "receipt.risk_metric": .number(12), "key.age": .duration(90.5),
            "key.attested_at": .timestamp(0), "devicecheck.bit0": .bool(true), "receipt.refresh_age": nil,
            "Z.upper": .number(-3), "velocity.x": .number(.infinity),
        ]
        let expected = #"{"decision":"allow","enforced":false,"reasons":[{"message":"device has \"12\" keys\\in 30 days/ok","ruleId":"key-farm","score":60},{"message":"é ✓","ruleId":"tab\tline\nbell\u0007","score":2.5}],"ruleDecision":"review","ruleSetVersion":"sha256:0123","score":62.5,"signals":{"Z.upper":-3,"devicecheck.bit0":true,"key.age":90.5,"key.attested_at":"1970-01-01T00:00:00Z","receipt.refresh_age":null,"receipt.risk_metric":12,"request.action":"claim/promo","velocity.x":null}}"#
        #expect(Self.text(verdict, signals) == expected)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(expected.utf8)) as? [String: Any])
        #expect(parsed.count == 7)
    }

    @Test("no reasons, no rule decision (enforced), no signals")
    func minimal() {
        let verdict = RiskVerdict(decision: .deny, score: 0, reasons: [], ruleSetVersion: "none")
        #expect(Self.text(verdict, [:]) == #"{"decision":"deny","enforced":true,"reasons":[],"ruleSetVersion":"none","score":0,"signals":{}}"#)
    }
}
