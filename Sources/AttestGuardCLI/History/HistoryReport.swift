import AppleReceipts
import AttestGuardEngine
import Foundation
import RiskRules
import AttestGuardWire

/// The analysts' read commands as text for a terminal: one line per risk metric or decision, newest first.
enum HistoryReport {
    static func text(_ history: KeyHistory) -> String {
        var lines = ["key \(history.key.keyId.base64) of \(history.key.appId): \(history.key.status.rawValue)"]
        if let receipt = history.receipt {
            var parts = ["receipt \(receipt.type.rawValue) created \(time(receipt.createdAt))"]
            if let metric = receipt.riskMetric { parts.append("risk metric \(metric)\(receipt.metricStale ? " (stale)" : "")") }
            if let refreshed = receipt.refreshedAt { parts.append("refreshed \(time(refreshed))") }
            if let attempt = receipt.lastAttemptAt {
                parts.append("last attempt \(time(attempt))" + (receipt.lastOutcome.map { " (\($0))" } ?? ""))
            }
            if receipt.failedAttempts > 0 { parts.append("\(receipt.failedAttempts) failed attempt(s) since") }
            parts.append(receipt.nextRefreshAt.map { "next refresh \(time($0))" } ?? "not scheduled")
            lines.append(parts.joined(separator: ", "))
        } else {
            lines.append("no receipt")
        }
        if history.riskMetrics.isEmpty {
            lines.append("no risk metrics yet (each refresh that stores a receipt adds one)")
        } else {
            lines.append("risk metrics, newest receipt first:")
            for point in history.riskMetrics {
                lines.append("  \(time(point.receiptCreatedAt))  \(point.riskMetric)  (observed \(time(point.observedAt)))")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// - Parameter subject: How to name what was searched (`key …`, `the user`): a user or device id is not repeated.
    static func text(_ page: DecisionPage, subject: String) -> String {
        var lines = ["decisions about \(subject) in \(page.appId), \(time(page.from)) to \(time(page.to)): \(page.decisions.count), newest first"]
        for decision in page.decisions {
            var head = "\(time(decision.decidedAt))  \(decision.endpoint.rawValue)  \(decision.decision.rawValue)"
            if decision.ruleDecision != decision.decision { head += " (rules: \(decision.ruleDecision.rawValue))" }
            head += "  score \(number(decision.score))  \(decision.ruleSetVersion)"
            if let keyId = decision.keyId { head += "  key \(keyId)" }
            lines.append(head)
            for rule in decision.fired {
                let score = rule.score.map { " (\($0 >= 0 ? "+" : "")\(number($0)))" } ?? ""
                lines.append("    fired \(rule.ruleId)\(score)" + (rule.reason.map { ": \(printable($0))" } ?? ""))
            }
            lines.append("    signals " + signals(decision.signals))
        }
        if let next = page.next { lines.append("more: --cursor \(next.text)") }
        return lines.joined(separator: "\n")
    }

    /// The signals that had a value, `name=value` in name order, then how many were missing.
    private static func signals(_ snapshot: String) -> String {
        guard let values = try? JSONDecoder().decode([String: SnapshotValue].self, from: Data(snapshot.utf8)) else { return snapshot }
        var present: [String] = []
        var missing = 0
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            switch value {
            case .string(let text): present.append("\(name)=\(printable(text))")
            case .number(let value): present.append("\(name)=\(number(value))")
            case .bool(let flag): present.append("\(name)=\(flag)")
            case .missing: missing += 1
            }
        }
        return (present + (missing > 0 ? ["(\(missing) missing)"] : [])).joined(separator: " ")
    }

    /// Text a request supplied (an action, an attribute, a reason quoting them), with control characters shown as
    /// escapes, so that none reaches the terminal.
    private static func printable(_ text: String) -> String {
        var output = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                output += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    private static func time(_ date: Date) -> String {
        RFC3339.format(date)
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
