import Foundation
import RiskRules
import AttestVocabulary

/// The labelled part of `attestguard rules backtest --labels`: per rule set, how the fraud- and legitimate-labelled
/// decisions were decided with the precision and recall of `deny` and of `deny` or `review`; per rule of each set,
/// its hits on labelled decisions with its precision and recall. A share without a denominator prints as `-` (JSON
/// null).
enum BacktestLabelReport {
    static func text(_ scores: LabelScores) -> [String] {
        var lines = ["", "labelled decisions: \(scores.labelled) (\(scores.fraud) fraud, \(scores.legitimate) legitimate)"]
        guard scores.labelled > 0 else { return lines }
        lines.append("")
        lines.append("set        label          allow     review       deny   deny P/R       deny+review P/R")
        for (name, set) in [("logged", scores.before), ("candidate", scores.after)] {
            for label in FraudLabel.allCases {
                let cells = Decision.allCases.map { String(format: "%10d", set.count(label, $0)) }.joined(separator: " ")
                let shares = label == .fraud
                    ? "   \(share(set.precision(of: LabelScores.deny)))/\(share(set.recall(of: LabelScores.deny)))"
                        + "    \(share(set.precision(of: LabelScores.denyOrReview)))/\(share(set.recall(of: LabelScores.denyOrReview)))"
                    : ""
                lines.append(name.padding(toLength: 11, withPad: " ", startingAt: 0) + label.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0) + cells + shares)
            }
        }
        for (name, rules) in [("logged", scores.rulesBefore), ("candidate", scores.rulesAfter)] {
            lines.append("")
            lines.append("\(name) rules on labelled decisions (fired, on fraud, precision, recall):")
            if rules.isEmpty { lines.append("  none fired") }
            for (rule, score) in rules.sorted(by: { $0.key < $1.key }) {
                lines.append("  \(rule): \(score.firedLabelled), \(score.firedFraud), \(share(LabelScores.precision(score))), \(share(scores.recall(score)))")
            }
        }
        return lines
    }

    static func json(_ scores: LabelScores) -> [String: Any] {
        func set(_ set: LabelScores.SetScore) -> [String: Any] {
            [
                "decided": Dictionary(uniqueKeysWithValues: FraudLabel.allCases.map { label in
                    (label.rawValue, Dictionary(uniqueKeysWithValues: Decision.allCases.map { ($0.rawValue, set.count(label, $0)) }))
                }),
                Decision.deny.rawValue: ["precision": number(set.precision(of: LabelScores.deny)), "recall": number(set.recall(of: LabelScores.deny))],
                "denyOrReview": ["precision": number(set.precision(of: LabelScores.denyOrReview)), "recall": number(set.recall(of: LabelScores.denyOrReview))],
            ]
        }
        func rules(_ rules: [String: LabelScores.RuleScore]) -> [String: Any] {
            rules.mapValues { score in
                [
                    "fired": score.firedLabelled, "firedOnFraud": score.firedFraud,
                    "precision": number(LabelScores.precision(score)), "recall": number(scores.recall(score)),
                ] as [String: Any]
            }
        }
        return [
            "fraud": scores.fraud, "legitimate": scores.legitimate,
            "logged": set(scores.before), "candidate": set(scores.after),
            "loggedRules": rules(scores.rulesBefore), "candidateRules": rules(scores.rulesAfter),
        ]
    }

    /// A share to three places, `-` when there is none.
    static func share(_ value: Double?) -> String {
        value.map { String(format: "%.3f", $0) } ?? "-"
    }

    private static func number(_ value: Double?) -> Any {
        value.map { ($0 * 1_000).rounded() / 1_000 } ?? NSNull()
    }
}
