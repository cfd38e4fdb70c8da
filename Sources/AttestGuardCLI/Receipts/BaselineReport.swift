import AttestGuardStore
import Foundation
import AttestGuardWire

/// What `attestguard receipts baseline` prints of one app: its latest risk-metric baseline, the recent history,
/// and thresholds suggested from it.
///
/// The suggestions follow Apple's advice to learn each app's own normal. Review a key whose metric is above the
/// app's p99: by the nearest-rank definition at most 1 % of the app's keys are there, whatever is normal for it.
/// Deny at twice the p99 or at 10, whichever is higher: Apple says most devices have one to three keys, so ten
/// attestations on one device in 30 days is far outside any app's normal, and an app whose p99 is already high
/// (shared devices, many reinstalls) is denied only well beyond it.
struct BaselineReport: Sendable {
    var appId: String
    /// Newest first; the first is the latest.
    var history: [RiskMetricBaseline]

    /// Below this many keys the percentiles say little; the text says so.
    static let smallSample = 100

    var latest: RiskMetricBaseline? { history.first }

    /// Review a metric above this (the p99).
    var reviewAbove: Int? { latest?.p99 }

    /// Deny a metric at or above this: max(10, 2 × p99).
    var denyAtOrAbove: Int? { latest?.p99.map { max(10, 2 * $0) } }

    var text: String {
        guard let latest else { return "\(appId): no baseline yet (it is computed at the end of `attestguard receipts refresh`)\n" }
        var lines = [
            "\(appId): baseline of \(latest.day), \(latest.keyCount) active keys with a risk metric",
            "  p50 \(Self.number(latest.p50))  p90 \(Self.number(latest.p90))  p99 \(Self.number(latest.p99))"
                + "  share >= 4: \(Self.percent(latest.shareAtLeast4))  share >= 10: \(Self.percent(latest.shareAtLeast10))",
        ]
        if let reviewAbove, let denyAtOrAbove {
            lines.append("  suggested: review when receipt.risk_metric > \(reviewAbove) (the p99); deny when >= \(denyAtOrAbove) (max of 10 and twice the p99)")
        }
        if latest.keyCount < Self.smallSample {
            lines.append("  few keys: the percentiles are rough; keep the fixed thresholds until there are \(Self.smallSample) or more")
        }
        lines.append("  history (newest first):")
        lines.append("    day         keys   p50  p90  p99  >=4      >=10")
        for baseline in history {
            lines.append("    " + [
                baseline.day, Self.pad(String(baseline.keyCount), 6), Self.pad(Self.number(baseline.p50), 4), Self.pad(Self.number(baseline.p90), 4),
                Self.pad(Self.number(baseline.p99), 4), Self.pad(Self.percent(baseline.shareAtLeast4), 8), Self.percent(baseline.shareAtLeast10),
            ].joined(separator: " "))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The JSON object of `--json`.
    var json: [String: Any] {
        var object: [String: Any] = ["appId": appId, "history": history.map(Self.json)]
        if let latest { object["latest"] = Self.json(latest) }
        if let reviewAbove, let denyAtOrAbove {
            object["suggested"] = ["reviewAbove": reviewAbove, "denyAtOrAbove": denyAtOrAbove]
        }
        return object
    }

    static func json(_ baseline: RiskMetricBaseline) -> [String: Any] {
        var object: [String: Any] = [
            "day": baseline.day, "computedAt": RFC3339.format(baseline.computedAt), "computedBy": baseline.computedBy,
            "keys": baseline.keyCount, "shareAtLeast4": baseline.shareAtLeast4, "shareAtLeast10": baseline.shareAtLeast10,
            "histogram": Dictionary(uniqueKeysWithValues: baseline.histogram.map { (String($0.key), $0.value) }),
        ]
        if let p50 = baseline.p50 { object["p50"] = p50 }
        if let p90 = baseline.p90 { object["p90"] = p90 }
        if let p99 = baseline.p99 { object["p99"] = p99 }
        return object
    }

    private static func number(_ value: Int?) -> String { value.map(String.init) ?? "-" }

    private static func percent(_ share: Double) -> String { String(format: "%.1f %%", share * 100) }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
