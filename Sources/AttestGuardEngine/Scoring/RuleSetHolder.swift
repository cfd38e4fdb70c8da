public import RiskRules
import Synchronization

/// The rule set every verdict of this process uses, swapped whole: a reader takes the current set once and
/// evaluates with it, so a reload never mixes two versions in one verdict.
public final class RuleSetHolder: Sendable {
    private let current: Mutex<RuleSet>

    public init(_ ruleSet: RuleSet) {
        self.current = Mutex(ruleSet)
    }

    /// The set in force.
    public var ruleSet: RuleSet {
        current.withLock { $0 }
    }

    /// Puts `ruleSet` in force; returns the one it replaces.
    @discardableResult
    public func replace(with ruleSet: RuleSet) -> RuleSet {
        current.withLock { held in
            let previous = held
            held = ruleSet
            return previous
        }
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
