import Foundation
import RiskRules
import AttestGuardStore
import AttestVocabulary

/// How `attestguard rules backtest` prints its report: a decision matrix (logged rows, candidate columns),
/// per-rule hits before and after, and the decisions that read signals their snapshot lacks.
enum BacktestReport {
    static func text(_ report: Backtest.Report, candidate: RuleSet, since: String, elapsed: Duration, labels: Bool = false) -> String {
        var lines = [
            "candidate \(candidate.version) (\(candidate.rules.count) rules) over \(report.decisions) decisions of the last \(since), in \(String(format: "%.1f", elapsed.timeInterval)) s",
            "",
            "logged \\ candidate      allow     review       deny",
        ]
        for old in Decision.allCases {
            let row = report.matrix[old] ?? [:]
            let cells = Decision.allCases.map { String(format: "%10d", row[$0] ?? 0) }.joined(separator: " ")
            lines.append(old.rawValue.padding(toLength: 20, withPad: " ", startingAt: 0) + cells)
        }
        lines.append("")
        lines.append("\(report.changed) of \(report.decisions) decisions change")
        let movers = report.movers
        if !movers.isEmpty {
            lines.append("")
            lines.append("rules whose hits move (before -> after):")
            for mover in movers.prefix(15) {
                lines.append("  \(mover.rule): \(mover.before) -> \(mover.after) (\(mover.after >= mover.before ? "+" : "")\(mover.after - mover.before))")
            }
        }
        lines.append("")
        lines.append("hits per candidate rule:")
        for rule in candidate.rules {
            lines.append("  \(rule.id): \(report.hitsAfter[rule.id] ?? 0)")
        }
        if report.touchedByMissing > 0 {
            lines.append("")
            let signals = report.missingSignals.sorted { $0.value > $1.value }.prefix(10).map { "\($0.key) (\($0.value))" }.joined(separator: ", ")
            lines.append("\(report.touchedByMissing) decisions read signals their snapshot lacks (evaluated as missing): \(signals)")
        }
        if !report.recomputedSignals.isEmpty {
            lines.append("")
            let signals = report.recomputedSignals.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }.joined(separator: ", ")
            lines.append("distinct counts the snapshots lack, recomputed from the decisions the log holds: \(signals)")
        }
        if report.unreadable > 0 { lines.append("\(report.unreadable) snapshots were unreadable and skipped") }
        if labels { lines += BacktestLabelReport.text(report.labels) }
        return lines.joined(separator: "\n")
    }

    static func json(_ report: Backtest.Report, candidate: RuleSet, labels: Bool = false) -> String {
        var object: [String: Any] = [
            "candidateVersion": candidate.version,
            "decisions": report.decisions,
            "changed": report.changed,
            "matrix": Dictionary(uniqueKeysWithValues: Decision.allCases.map { old in
                (old.rawValue, Dictionary(uniqueKeysWithValues: Decision.allCases.map { ($0.rawValue, report.matrix[old]?[$0] ?? 0) }))
            }),
            "hitsBefore": report.hitsBefore,
            "hitsAfter": report.hitsAfter,
            "touchedByMissing": report.touchedByMissing,
            "missingSignals": report.missingSignals,
            "recomputedSignals": report.recomputedSignals,
            "unreadable": report.unreadable,
        ]
        if labels { object["labels"] = BacktestLabelReport.json(report.labels) }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
