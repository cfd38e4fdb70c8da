import RiskRules

/// The rule set that loaded, as the JSON outputs write it (`$defs/ruleSet` in `docs/schemas/`): what the text output
/// of `rules lint` prints about it.
struct RuleSetRecord: Encodable {
    /// The decision thresholds of the score.
    struct Thresholds: Encodable {
        var review: Double
        var deny: Double
    }

    var version: String
    var rules: Int
    var thresholds: Thresholds
    /// The signals the rules and their reasons read, sorted.
    var signals: [String]

    init(_ ruleSet: RuleSet) {
        version = ruleSet.version
        rules = ruleSet.rules.count
        thresholds = Thresholds(review: ruleSet.thresholds.review, deny: ruleSet.thresholds.deny)
        signals = ruleSet.layout.namesRead
    }
}
