import AttestTestSupport
import Foundation
@testable import RiskRules

/// Compiles one in-memory rule file (plus optional list files by path).
func ruleSet(_ yaml: String, path: String = "rules.yaml", lists: [String: String] = [:]) throws(RuleSetLoadFailure) -> RuleSet {
    try RuleSetLoader.compile(documents: [(path, yaml)]) { name in
        guard let text = lists[name] else { throw CocoaError(.fileNoSuchFile) }
        return text
    }
}

/// The errors a rule file produces (empty if it loads).
func loadErrors(_ yaml: String, lists: [String: String] = [:]) -> [RuleSetError] {
    do {
        _ = try ruleSet(yaml, lists: lists)
        return []
    } catch {
        return error.errors
    }
}

/// A one-rule set whose condition is `expression`, evaluated with `signals` at `now`.
func evaluateCondition(_ expression: String, _ signals: [String: SignalValue] = [:], attributes: String = "", now: Double = 1_000_000) throws -> Bool? {
    let yaml = """
        version: 1
        \(attributes)
        rules:
          - id: probe
            when: '\(expression.replacingOccurrences(of: "'", with: "''"))'
            score: 1
        """
    let set = try ruleSet(yaml)
    let values = set.values(now: now)
    for (name, value) in signals { values.set(name, value) }
    return set.rules[0].evaluate(values)
}
