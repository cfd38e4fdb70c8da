/// A readable account of one evaluation for analysts (`attestguard rules explain`): every rule with whether it
/// fired (with the actions it asks for), did not, or could not decide because a signal it reads is missing; the
/// score, the decision and why.
public enum RuleExplanation {
    public static func text(_ ruleSet: RuleSet, values: SignalValues) -> String {
        let evaluation = ruleSet.evaluate(values)
        var lines = ["rule set \(ruleSet.version): \(ruleSet.rules.count) rules, thresholds review \(RuleValueFormat.number(ruleSet.thresholds.review)) / deny \(RuleValueFormat.number(ruleSet.thresholds.deny))", ""]
        for rule in ruleSet.rules {
            let effect = [rule.score != 0 ? (rule.score > 0 ? "+" : "") + RuleValueFormat.number(rule.score) : nil, rule.decide.map { "decide \($0.rawValue)" }]
                .compactMap { $0 }.joined(separator: ", ")
            switch rule.evaluate(values) {
            case true?:
                lines.append("  FIRED    \(rule.id) (\(effect)): \(rule.reason(values))")
                for action in rule.actions(values) { lines.append("             then \(action)") }
            case false?: lines.append("  -        \(rule.id)")
            case nil: lines.append("  missing  \(rule.id): \(rule.condition) (a signal it reads has no value)")
            }
        }
        let missing = ruleSet.layout.namesRead.filter { values.value(of: $0) == nil }
        lines.append("")
        if !missing.isEmpty { lines.append("missing signals: \(missing.joined(separator: ", "))") }
        lines.append("score \(RuleValueFormat.number(evaluation.score)) -> \(evaluation.decision.rawValue)"
                     + (evaluation.decidedBy.map { " (decided by rule \($0))" } ?? " (by the thresholds)"))
        return lines.joined(separator: "\n")
    }
}
