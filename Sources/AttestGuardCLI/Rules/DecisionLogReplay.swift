import AttestGuardStore
import Foundation
import RiskRules

/// Replays a candidate rule set over the decisions a log holds from `from` to `until`, each with its fraud label
/// when `labels` are given: what `rules backtest` reports, and what the demo's labelled history measures.
enum DecisionLogReplay {
    /// Entries are read a page at a time; those decided after `until` are left out, so that a server writing
    /// meanwhile cannot keep the replay going.
    static func report(log: any DecisionLogReader, labels: DecisionLabels?, candidate: RuleSet, from: Date, until: Date) async throws -> Backtest.Report {
        var backtest = Backtest(candidate: candidate)
        var cursor: DecisionLogEntry?
        pages: while true {
            let page = try await log.decisions(since: from, after: cursor, limit: 5_000)
            guard let last = page.last else { break }
            for entry in page {
                guard entry.decidedAt <= until else { break pages }
                backtest.replay(Backtest.LoggedDecision(
                    decidedAt: entry.decidedAt,
                    decision: entry.ruleDecision,
                    fired: entry.fired.split(separator: ",").map(String.init),
                    signals: entry.signals,
                    label: labels?.label(of: entry)?.label
                ))
            }
            cursor = last
        }
        return backtest.report
    }
}
