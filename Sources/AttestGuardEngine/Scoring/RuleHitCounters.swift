import AttestVocabulary
import Metrics
import RiskRules

/// `attestguard_rule_hits_total{rule,endpoint,set}`: how often each rule of a loaded set fires, per endpoint, so that
/// an analyst sees a rule start firing on a third of the traffic right after an edit.
///
/// The handles are made once per load, for every rule and endpoint (which publishes each series at 0), so that a
/// verdict only looks its fired rules up. Past `limit` rules, the rest share `rule="_other"`. When a new set
/// replaces this one, ``retire(replacedBy:)`` removes the series of rules it no longer has.
public final class RuleHitCounters: Sendable {
    /// Which rule set a holder keeps: the one enforced, or the shadow one beside it.
    public enum Role: String, Sendable, CaseIterable {
        case live
        case shadow
    }

    /// The `rule` label of the rules past the limit.
    public static let otherRules = "_other"
    /// How many rules get a series of their own unless configured (`rules.hitMetricsLimit`).
    public static let defaultLimit = 500

    private let role: Role
    /// Per rule id, one counter per endpoint in `Endpoint.allCases` order.
    private let counters: [String: [Counter]]
    private let other: [Counter]?

    init(_ ruleSet: RuleSet, role: Role, limit: Int) {
        self.role = role
        let ids = ruleSet.rules.map(\.id)
        var counters: [String: [Counter]] = [:]
        for id in ids.prefix(max(0, limit)) { counters[id] = Self.make(rule: id, role: role) }
        let other = ids.count > limit ? Self.make(rule: Self.otherRules, role: role) : nil
        if let other {
            for id in ids.dropFirst(max(0, limit)) { counters[id] = other }
        }
        self.counters = counters
        self.other = other
    }

    /// Counts the rules `evaluation` fired on `endpoint`; a rule this set does not have (the set was replaced during
    /// the verdict) is not counted.
    func record(_ evaluation: RuleEvaluation, endpoint: Endpoint) {
        guard !evaluation.fired.isEmpty, let index = Endpoint.allCases.firstIndex(of: endpoint) else { return }
        for fired in evaluation.fired { counters[fired.id]?[index].increment() }
    }

    /// Removes the series of the rules `next` no longer has (and of `_other` when it no longer needs it).
    func retire(replacedBy next: RuleHitCounters) {
        for (id, handles) in counters where next.counters[id] == nil && id != Self.otherRules {
            guard handles.first !== other?.first else { continue }
            for handle in handles { handle.destroy() }
        }
        if let other, next.other == nil {
            for handle in other { handle.destroy() }
        }
    }

    private static func make(rule: String, role: Role) -> [Counter] {
        Endpoint.allCases.map { endpoint in
            let counter = Counter(
                label: MetricFamily.ruleHits.name,
                dimensions: [("rule", rule), ("endpoint", endpoint.rawValue), ("set", role.rawValue)]
            )
            counter.increment(by: 0)
            return counter
        }
    }
}
