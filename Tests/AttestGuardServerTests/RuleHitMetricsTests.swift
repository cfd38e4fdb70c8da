import AttestVocabulary
@testable import AttestGuardEngine
import Foundation
@testable import RiskRules
import Testing

@Suite("Metrics: rule hits per rule, endpoint and set")
struct RuleHitMetricsTests {
    static func ruleSet(_ ids: [String]) throws -> RuleSet {
        let rules = ids.map { "  - id: \($0)\n    when: missing(key.status)\n    score: +10\n    reason: \"\($0)\"\n" }.joined()
        return try RuleSetLoader.compile(documents: [("hits.yaml", "version: 1\nrules:\n" + rules)]) { _ in "" }
    }

    static func exposition() -> String {
        String(decoding: ServerHarness.registry.emitToBuffer(), as: UTF8.self)
    }

    static func value(_ rule: String, endpoint: Endpoint, set: RuleHitCounters.Role, in text: String) -> Double? {
        let prefix = #"attestguard_rule_hits_total{rule="\#(rule)",endpoint="\#(endpoint.rawValue)",set="\#(set.rawValue)"} "#
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count)) }
    }

    static func fired(_ ids: [String]) -> RuleEvaluation {
        RuleEvaluation(
            score: 10, decision: .allow, decidedBy: nil, fired: ids.map { .init(id: $0, score: 10, decide: nil, reason: $0) }, ruleSetVersion: "v"
        )
    }

    @Test("every rule's series is at 0 from load; fired rules count; past the limit they count as _other")
    func countsAndLimit() throws {
        _ = ServerHarness.registry
        let ids = ["hits-first-\(UUID().uuidString.prefix(8))", "hits-second-\(UUID().uuidString.prefix(8))"]
        let holder = RuleSetHolder(try Self.ruleSet(ids), role: .shadow, hitMetricsLimit: 1)
        let loaded = Self.exposition()
        for endpoint in Endpoint.allCases {
            #expect(Self.value(ids[0], endpoint: endpoint, set: .shadow, in: loaded) == 0, "\(endpoint)")
            #expect(Self.value(ids[1], endpoint: endpoint, set: .shadow, in: loaded) == nil, "past the limit: no series of its own")
        }
        let otherBefore = try #require(Self.value(RuleHitCounters.otherRules, endpoint: .score, set: .shadow, in: loaded))
        holder.hits.record(Self.fired(ids), endpoint: .score)
        holder.hits.record(Self.fired([ids[0]]), endpoint: .score)
        holder.hits.record(Self.fired(["not-in-the-set"]), endpoint: .score)
        let after = Self.exposition()
        #expect(Self.value(ids[0], endpoint: .score, set: .shadow, in: after) == 2)
        #expect(Self.value(ids[0], endpoint: .assertion, set: .shadow, in: after) == 0)
        #expect(Self.value(RuleHitCounters.otherRules, endpoint: .score, set: .shadow, in: after) == otherBefore + 1)
        #expect(!after.contains("not-in-the-set"))
    }

    @Test("a reload removes the series of rules no longer loaded and keeps the others' counts")
    func reloadRetiresRules() throws {
        _ = ServerHarness.registry
        let kept = "hits-kept-\(UUID().uuidString.prefix(8))"
        let dropped = "hits-dropped-\(UUID().uuidString.prefix(8))"
        let added = "hits-added-\(UUID().uuidString.prefix(8))"
        let holder = RuleSetHolder(try Self.ruleSet([kept, dropped]))
        holder.hits.record(Self.fired([kept, dropped]), endpoint: .assertion)
        holder.replace(with: try Self.ruleSet([kept, added]))
        let text = Self.exposition()
        #expect(Self.value(kept, endpoint: .assertion, set: .live, in: text) == 1)
        #expect(Self.value(added, endpoint: .assertion, set: .live, in: text) == 0)
        #expect(!text.contains(dropped), "the dropped rule's series stayed")
        holder.hits.record(Self.fired([kept]), endpoint: .assertion)
        #expect(Self.value(kept, endpoint: .assertion, set: .live, in: Self.exposition()) == 2)
    }
}
