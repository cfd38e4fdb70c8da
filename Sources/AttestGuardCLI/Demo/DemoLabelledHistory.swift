import AsyncHTTPClient
import AttestGuardRuntime
import AttestGuardStore
import AttestVocabulary
import Foundation
import RiskRules
import TrafficSimulator

/// The demo's labelled-history step: the fraud team labels the personas' checked requests, most through `POST
/// /v1/labels` (``CaseLabels``) and the clients without App Attest by approving their review items in the console
/// (``DemoConsoleAnalyst``); then the rules are replayed over the server's decision log with the stored labels, as
/// `rules backtest --labels` does. Its table shows each rule's precision and recall, and the rule set's, against
/// ``PersonaExpectations/labelledHistory``.
struct DemoLabelledHistory {
    /// One line of the table: a rule, or the set's `deny` or `deny` or `review`.
    struct Row {
        var name: String
        /// Labelled decisions the rule fired on (nil for the set's lines).
        var fired: Int?
        var figure: LabelledHistoryExpectation.Figure
        var expected: LabelledHistoryExpectation.Figure?

        var matched: Bool { expected.map(figure.matches) ?? false }
    }

    let posted: Int
    /// Review items the analyst decided in the console.
    let decided: [DemoConsoleAnalyst.Decided]
    /// Checked requests of the reviewed personas that opened no review item.
    let missing: [String]
    /// The labels the store holds from review decisions (source ``ReviewDecision/labelSource``).
    let reviewLabels: Int
    let fraud: Int
    let legitimate: Int
    let expectedFraud: Int
    let rows: [Row]

    /// Every figure is the expected one, over the expected number of fraud-labelled decisions, and each decision in
    /// the console became a label.
    var allMatched: Bool { fraud == expectedFraud && missing.isEmpty && reviewLabels == decided.count && rows.allSatisfy(\.matched) }

    /// Posts the labels of `results`' checked verdicts, decides the review items of the others in the console, waits
    /// for the decision log to hold every verdict, and replays the rule set in `rulesDirectory` over the log since
    /// `since` with the stored labels.
    static func measure(
        results: [PersonaResult], serverURL: String, apiKey: String, server: DemoServer, rulesDirectory: String, since: Date
    ) async throws -> DemoLabelledHistory {
        let appId = ServerConfigurationLoader.sampleAppId
        let labels = CaseLabels.labels(for: results, appId: appId)
        try await server.flushDecisionLog()
        try await server.flushReviewOpenings()
        let client = HTTPClient.forSimulatedTraffic()
        do {
            let api = AttestGuardAPI(baseURL: serverURL, apiKey: apiKey, client: client)
            for batch in CaseLabels.batches(labels) {
                let answer = try await api.post("/v1/labels", batch)
                guard answer.succeeded else {
                    throw DemoError("POST /v1/labels answered \(answer.status): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
                }
            }
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            throw error
        }
        let work = try await DemoConsoleAnalyst(serverURL: serverURL, apiKey: apiKey, appId: appId).decide(results)
        let store = server.store
        let stored = try await store.labels(appId: appId)
        let report = try await DecisionLogReplay.report(
            log: store, labels: DecisionLabels(stored), candidate: try RuleSetArgument.load(rulesDirectory),
            from: since, until: Date()
        )
        return DemoLabelledHistory(
            posted: labels.count, decided: work.decided, missing: work.missing, reviewLabels: stored.count { $0.source == ReviewDecision.labelSource },
            scores: report.labels, expectation: PersonaExpectations.labelledHistory
        )
    }

    init(
        posted: Int, decided: [DemoConsoleAnalyst.Decided], missing: [String] = [], reviewLabels: Int, scores: LabelScores,
        expectation: LabelledHistoryExpectation
    ) {
        self.posted = posted
        self.decided = decided
        self.missing = missing
        self.reviewLabels = reviewLabels
        fraud = scores.fraud
        legitimate = scores.legitimate
        expectedFraud = expectation.fraud
        let fired = scores.rulesBefore
        let ruleIds = Set(fired.keys).union(expectation.rules.keys).sorted { left, right in
            let (a, b) = (fired[left]?.firedLabelled ?? 0, fired[right]?.firedLabelled ?? 0)
            return a != b ? a > b : left < right
        }
        rows = ruleIds.map { rule in
            let score = fired[rule] ?? LabelScores.RuleScore()
            return Row(
                name: rule, fired: score.firedLabelled,
                figure: .init(precision: LabelScores.precision(score), recall: scores.recall(score)), expected: expectation.rules[rule]
            )
        } + [
            Row(name: "rule set: deny", fired: nil,
                figure: .init(precision: scores.before.precision(of: LabelScores.deny), recall: scores.before.recall(of: LabelScores.deny)),
                expected: expectation.deny),
            Row(name: "rule set: deny or review", fired: nil,
                figure: .init(precision: scores.before.precision(of: LabelScores.denyOrReview), recall: scores.before.recall(of: LabelScores.denyOrReview)),
                expected: expectation.denyOrReview),
        ]
    }

    /// The table as aligned text, each line `ok` or `UNEXPECTED`.
    var text: String {
        let header = ["labelled history", "result", "fired", "precision", "recall", "expected"]
        let cells = rows.map { row in
            [
                row.name, row.matched ? "ok" : "UNEXPECTED", row.fired.map(String.init) ?? "",
                LabelledHistoryExpectation.Figure.text(row.figure.precision), LabelledHistoryExpectation.Figure.text(row.figure.recall),
                row.expected?.description ?? "fires on no labelled decision",
            ]
        }
        let widths = header.indices.map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
        func line(_ values: [String]) -> String {
            zip(values, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }
        var lines = [
            "The fraud team's labels on the checked requests: \(fraud) fraud, \(legitimate) legitimate"
                + (fraud == expectedFraud ? "" : " (UNEXPECTED: \(expectedFraud) fraud expected)"),
            "  posted to /v1/labels: \(posted)",
            "  review items decided in the console: \(decided.count), now \(reviewLabels) label\(reviewLabels == 1 ? "" : "s")"
                + " of source \(ReviewDecision.labelSource)" + (reviewLabels == decided.count ? "" : " (UNEXPECTED: one per decision expected)"),
        ]
        lines += decided.map { "    item \($0.itemId) (\($0.persona.rawValue)): \($0.decision.status.rawValue)" }
        lines += missing.map { "    UNEXPECTED: \($0)" }
        lines += [
            "",
            line(header), line(widths.map { String(repeating: "-", count: $0) }),
        ]
        lines += cells.map(line)
        lines.append("")
        lines.append(allMatched ? "the rules' precision and recall are the expected ones" : "UNEXPECTED precision or recall")
        return lines.joined(separator: "\n") + "\n"
    }
}
