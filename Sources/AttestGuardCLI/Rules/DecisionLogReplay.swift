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
        // The candidate's distinct counts that snapshots lack are recomputed from the decisions' subjects: the
        // decisions of its longest window before `from` are recorded first, as sightings only.
        let leadIn = DistinctReplay.leadIn(for: candidate)
        var cursor: DecisionLogEntry?
        pages: while true {
            let page = try await log.decisions(since: from.addingTimeInterval(-leadIn), after: cursor, limit: 5_000)
            guard let last = page.last else { break }
            for entry in page {
                guard entry.decidedAt <= until else { break pages }
                let subjects = leadIn > 0 ? Self.subjects(of: entry) : nil
                guard entry.decidedAt >= from else {
                    if let subjects { backtest.recordLeadIn(subjects) }
                    continue
                }
                backtest.replay(Backtest.LoggedDecision(
                    decidedAt: entry.decidedAt,
                    decision: entry.ruleDecision,
                    fired: entry.fired.split(separator: ",").map(String.init),
                    signals: entry.signals,
                    label: labels?.label(of: entry)?.label,
                    subjects: subjects
                ))
            }
            cursor = last
        }
        return backtest.report
    }

    /// A logged decision's subjects as the distinct counts' replay names them.
    static func subjects(of entry: DecisionLogEntry) -> DistinctReplay.Subjects {
        DistinctReplay.Subjects(
            appId: entry.appId, key: entry.keyId, user: entry.userHash, device: entry.deviceHash, ip: entry.ipHash, decidedAt: entry.decidedAt
        )
    }
}
