import AttestGuardEngine
import AttestVocabulary
import Foundation

/// The verdicts page: counts by decision, over time and in total.
struct VerdictsPage: Sendable {
    struct Total: Sendable {
        var decision: String
        var count: Int
        var share: String
    }

    struct Row: Sendable {
        var start: String
        var counts: [Int]
        var total: Int
    }

    struct Report: Sendable {
        var counted: Int
        var truncated: Bool
        var totals: [Total]
        var decisions: [String]
        var rows: [Row]
        var chart: BarChart
    }

    var frame: ConsoleFrame
    var report: Report

    init(frame: ConsoleFrame, _ report: VerdictReport) {
        self.frame = frame
        let long = report.range == .week
        let decisions = Decision.allCases
        self.report = Report(
            counted: report.counted, truncated: report.truncated,
            totals: decisions.map { Total(decision: $0.rawValue, count: report.totals[$0] ?? 0, share: ConsoleText.share(report.totals[$0] ?? 0, of: report.counted)) },
            decisions: decisions.map(\.rawValue),
            rows: report.buckets.map { bucket in
                Row(start: ConsoleText.minute(bucket.start), counts: decisions.map { bucket.decisions[$0] ?? 0 }, total: bucket.total)
            },
            chart: BarChart(
                caption: "Verdicts per \(Int(report.range.bucket / 60)) minutes by decision",
                columns: report.buckets.map { bucket in
                    BarChart.Column(
                        label: ConsoleText.tick(bucket.start, long: long),
                        segments: decisions.map { (series: $0.rawValue, value: Double(bucket.decisions[$0] ?? 0)) }
                    )
                },
                stacked: true, legend: decisions.map { BarChart.LegendItem(series: $0.rawValue, label: $0.rawValue) }
            )
        )
    }
}

/// The rule hits page: how often each rule fired in the live set and in the shadow set.
struct RulesPage: Sendable {
    struct Rule: Sendable {
        var rule: String
        var live: Int
        var liveShare: String
        var shadow: Int
        var shadowShare: String
    }

    struct Report: Sendable {
        var counted: Int
        var shadowCounted: Int
        var truncated: Bool
        var rules: [Rule]
        var hasRules: Bool
        var chart: BarChart
    }

    /// Rules drawn in the chart (the table lists them all).
    static let charted = 12

    var frame: ConsoleFrame
    var report: Report

    init(frame: ConsoleFrame, _ report: VerdictReport) {
        self.frame = frame
        let rules = report.ruleHits.map { hits in
            Rule(
                rule: hits.rule, live: hits.live, liveShare: ConsoleText.share(hits.live, of: report.counted), shadow: hits.shadow,
                shadowShare: ConsoleText.share(hits.shadow, of: report.shadowCounted)
            )
        }
        let shares = report.ruleHits.prefix(Self.charted).map { hits in
            BarChart.Column(label: String(hits.rule.prefix(12)), segments: [
                (series: "live", value: ConsoleText.percent(hits.live, of: report.counted)),
                (series: "shadow", value: ConsoleText.percent(hits.shadow, of: report.shadowCounted)),
            ])
        }
        self.report = Report(
            counted: report.counted, shadowCounted: report.shadowCounted, truncated: report.truncated, rules: rules, hasRules: !rules.isEmpty,
            chart: BarChart(
                caption: "Hit share of verdicts per rule, live vs shadow (%)", columns: shares, stacked: false,
                legend: [BarChart.LegendItem(series: "live", label: "live"), BarChart.LegendItem(series: "shadow", label: "shadow")],
                scale: min(100, max(shares.flatMap { $0.segments.map { $0.value } }.max() ?? 1, 1)), unit: "%", labelEvery: 1
            )
        )
    }
}

/// The shadow page: the pairs of decisions the live and the shadow set made on the same verdicts.
struct ShadowPage: Sendable {
    struct Pair: Sendable {
        var live: String
        var shadow: String
        var count: Int
        var differs: Bool
    }

    struct Report: Sendable {
        var shadowCounted: Int
        var noShadow: Bool
        var disagreements: Int
        var disagreementShare: String
        var pairs: [Pair]
        var chart: BarChart
    }

    var frame: ConsoleFrame
    var report: Report

    init(frame: ConsoleFrame, _ report: VerdictReport) {
        self.frame = frame
        self.report = Report(
            shadowCounted: report.shadowCounted, noShadow: report.shadowCounted == 0, disagreements: report.disagreements,
            disagreementShare: ConsoleText.share(report.disagreements, of: report.shadowCounted),
            pairs: report.shadowPairs.map { Pair(live: $0.live.rawValue, shadow: $0.shadow.rawValue, count: $0.count, differs: $0.live != $0.shadow) },
            chart: BarChart(
                caption: "Verdicts per pair of decisions (live → shadow)",
                columns: report.shadowPairs.map { pair in
                    BarChart.Column(label: "\(pair.live)→\(pair.shadow)", segments: [(series: pair.shadow.rawValue, value: Double(pair.count))])
                },
                stacked: true, legend: [], labelEvery: 1
            )
        )
    }
}

/// The rollout page: the share of verdicts about an attested key, beside the app's required percentage.
struct RolloutPage: Sendable {
    struct Row: Sendable {
        var start: String
        var withKey: Int
        var withoutKey: Int
        var share: String
    }

    struct Report: Sendable {
        var withKey: Int
        var withoutKey: Int
        var withKeyShare: String
        var requiredPercent: Int
        var rows: [Row]
        var chart: BarChart
    }

    /// One protected route's forward-auth answers: a cell per ``GatewayCheckOutcome``, in its order.
    struct GatewayRoute: Sendable {
        struct Cell: Sendable {
            var outcome: String
            var count: Int64
        }

        var route: String
        var cells: [Cell]
        var refused: Int64
        var refusedUnderRequire: Int64
        var shareUnderRequire: String
    }

    struct GatewayChecks: Sendable {
        var outcomes: [String]
        var routes: [GatewayRoute]
        var truncated: Bool
    }

    var frame: ConsoleFrame
    var report: Report
    var gatewayChecks: GatewayChecks

    init(frame: ConsoleFrame, _ report: VerdictReport, gatewayChecks: GatewayCheckReport) {
        self.frame = frame
        let outcomes = GatewayCheckOutcome.allCases.map(\.rawValue)
        self.gatewayChecks = GatewayChecks(
            outcomes: outcomes,
            routes: gatewayChecks.routes.map { route in
                GatewayRoute(
                    route: route.route, cells: outcomes.map { GatewayRoute.Cell(outcome: $0, count: route.outcomes[$0] ?? 0) },
                    refused: route.refused, refusedUnderRequire: route.refusedUnderRequire,
                    shareUnderRequire: ConsoleText.share(Int(route.refusedUnderRequire), of: Int(route.total))
                )
            },
            truncated: gatewayChecks.truncated
        )
        let withKey = report.buckets.reduce(0) { $0 + $1.withKey }
        let withoutKey = report.buckets.reduce(0) { $0 + $1.withoutKey }
        let long = report.range == .week
        var chart = BarChart(
            caption: "Share of verdicts with an App Attest key (%)",
            columns: report.buckets.map { bucket in
                BarChart.Column(
                    label: ConsoleText.tick(bucket.start, long: long),
                    segments: [(series: "keyed", value: ConsoleText.percent(bucket.withKey, of: bucket.total))]
                )
            },
            stacked: true, legend: [BarChart.LegendItem(series: "keyed", label: "with a key")], scale: 100, unit: "%"
        )
        chart.addGuide(at: Double(report.attestationRequiredPercent), scale: 100, label: "required \(report.attestationRequiredPercent)%")
        self.report = Report(
            withKey: withKey, withoutKey: withoutKey, withKeyShare: ConsoleText.share(withKey, of: withKey + withoutKey),
            requiredPercent: report.attestationRequiredPercent,
            rows: report.buckets.map { bucket in
                Row(start: ConsoleText.minute(bucket.start), withKey: bucket.withKey, withoutKey: bucket.withoutKey, share: ConsoleText.share(bucket.withKey, of: bucket.total))
            },
            chart: chart
        )
    }
}

/// The risk-metric page: how the app's active keys spread over Apple's risk metric.
struct RiskPage: Sendable {
    struct Band: Sendable {
        var label: String
        var keys: Int
        var share: String
    }

    struct Report: Sendable {
        var keys: Int
        var truncated: Bool
        var bands: [Band]
        var chart: BarChart
    }

    var frame: ConsoleFrame
    var report: Report

    init(frame: ConsoleFrame, _ report: RiskMetricReport) {
        self.frame = frame
        self.report = Report(
            keys: report.keys, truncated: report.truncated,
            bands: report.bands.map { Band(label: $0.label, keys: $0.keys, share: ConsoleText.share($0.keys, of: report.keys)) },
            chart: BarChart(
                caption: "Active keys by risk metric", columns: report.bands.map { BarChart.Column(label: $0.label, segments: [(series: "keys", value: Double($0.keys))]) },
                stacked: true, legend: [], labelEvery: 1
            )
        )
    }
}
