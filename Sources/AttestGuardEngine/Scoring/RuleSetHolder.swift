public import RiskRules
import Synchronization

/// The rule set every verdict of this process uses, swapped whole: a reader takes the current set once and
/// evaluates with it, so a reload never mixes two versions in one verdict. Each set comes with its rule hit
/// counters (``RuleHitCounters``), made when it is put in force.
public final class RuleSetHolder: Sendable {
    private let current: Mutex<(ruleSet: RuleSet, hits: RuleHitCounters)>
    private let role: RuleHitCounters.Role
    private let hitMetricsLimit: Int

    /// - Parameters:
    ///   - role: Whether the set is enforced or a shadow beside it (the `set` label of its rule hits).
    ///   - hitMetricsLimit: Rules past this many share one hit series, `rule="_other"`.
    public init(_ ruleSet: RuleSet, role: RuleHitCounters.Role = .live, hitMetricsLimit: Int = RuleHitCounters.defaultLimit) {
        self.role = role
        self.hitMetricsLimit = hitMetricsLimit
        self.current = Mutex((ruleSet, RuleHitCounters(ruleSet, role: role, limit: hitMetricsLimit)))
    }

    /// The set in force.
    public var ruleSet: RuleSet {
        current.withLock { $0.ruleSet }
    }

    /// The hit counters of the set in force.
    var hits: RuleHitCounters {
        current.withLock { $0.hits }
    }

    /// Puts `ruleSet` in force; returns the one it replaces. The hit series of rules it no longer has are removed.
    @discardableResult
    public func replace(with ruleSet: RuleSet) -> RuleSet {
        let hits = RuleHitCounters(ruleSet, role: role, limit: hitMetricsLimit)
        let previous = current.withLock { held in
            let previous = held
            held = (ruleSet, hits)
            return previous
        }
        previous.hits.retire(replacedBy: hits)
        return previous.ruleSet
    }

    /// A rule set with no rules: every verdict is allow with score 0 (version `none`), for a server started
    /// without rules.
    public static let empty: RuleSet = {
        do {
            return try RuleSetLoader.compile(documents: [("none.yaml", "version: 1\nrules: []\n")]) { _ in "" }
        } catch {
            preconditionFailure("the empty rule set does not compile: \(error)")
        }
    }()
}
