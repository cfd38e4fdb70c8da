import AttestGuardStore
public import AttestVocabulary
public import Foundation

/// What the console shows of an app's verdicts over a range: counts by decision over time, rule hits of the live
/// and the shadow set, the shadow set's disagreements, and the share of verdicts about an attested key. Counted
/// from the decision log, so every process sharing the store is in it.
public struct VerdictReport: Sendable {
    /// One bucket of the range.
    public struct Bucket: Sendable, Hashable {
        public var start: Date
        /// Verdicts by the decision returned.
        public var decisions: [Decision: Int]
        /// Verdicts whose request named a key, and those that did not.
        public var withKey: Int
        public var withoutKey: Int

        public var total: Int { withKey + withoutKey }
    }

    /// One rule's hits in the live set and in the shadow set (over the verdicts the shadow set also decided).
    public struct RuleHits: Sendable, Hashable {
        public var rule: String
        public var live: Int
        public var shadow: Int
    }

    /// A pair of decisions (the live rules' own, the shadow set's) and how many verdicts had it.
    public struct DecisionPair: Sendable, Hashable {
        public var live: Decision
        public var shadow: Decision
        public var count: Int
    }

    public var appId: String
    public var range: ConsoleRange
    public var from: Date
    public var to: Date
    public var buckets: [Bucket]
    /// Verdicts counted, by the decision returned.
    public var totals: [Decision: Int]
    public var counted: Int
    /// Whether the range held more verdicts than were counted (the newest ``ConsoleReports/maximumVerdicts`` were).
    public var truncated: Bool
    /// Live hits first by count, then shadow hits, then rule id.
    public var ruleHits: [RuleHits]
    /// Verdicts that the shadow set also decided.
    public var shadowCounted: Int
    /// Every pair of decisions seen, disagreements first.
    public var shadowPairs: [DecisionPair]
    /// Verdicts whose shadow decision differs from the live rules' own.
    public var disagreements: Int
    /// The app's configured `attestationRequiredPercent`.
    public var attestationRequiredPercent: Int
}

extension VerdictReport {
    /// Counts `samples` (newest first, at most `limit` of them read) into the range's buckets.
    init(appId: String, range: ConsoleRange, from: Date, to: Date, samples: [VerdictSample], limit: Int, attestationRequiredPercent: Int) {
        var buckets = (0..<range.bucketCount).map { index in
            Bucket(start: from.addingTimeInterval(Double(index) * range.bucket), decisions: [:], withKey: 0, withoutKey: 0)
        }
        var totals: [Decision: Int] = [:]
        var live: [String: Int] = [:]
        var shadow: [String: Int] = [:]
        var pairs: [DecisionPair] = []
        var shadowCounted = 0
        let counted = samples.prefix(limit)
        for sample in counted {
            let index = min(max(Int(sample.decidedAt.timeIntervalSince(from) / range.bucket), 0), buckets.count - 1)
            buckets[index].decisions[sample.decision, default: 0] += 1
            if sample.hasKey { buckets[index].withKey += 1 } else { buckets[index].withoutKey += 1 }
            totals[sample.decision, default: 0] += 1
            for rule in sample.fired.split(separator: ",") { live[String(rule), default: 0] += 1 }
            guard let verdict = sample.shadow else { continue }
            shadowCounted += 1
            for rule in verdict.fired.split(separator: ",") { shadow[String(rule), default: 0] += 1 }
            if let index = pairs.firstIndex(where: { $0.live == sample.ruleDecision && $0.shadow == verdict.decision }) {
                pairs[index].count += 1
            } else {
                pairs.append(DecisionPair(live: sample.ruleDecision, shadow: verdict.decision, count: 1))
            }
        }
        let rules = Set(live.keys).union(shadow.keys).map { RuleHits(rule: $0, live: live[$0] ?? 0, shadow: shadow[$0] ?? 0) }
        self.init(
            appId: appId, range: range, from: from, to: to, buckets: buckets, totals: totals, counted: counted.count,
            truncated: samples.count > limit,
            ruleHits: rules.sorted { ($0.live, $0.shadow, $1.rule) > ($1.live, $1.shadow, $0.rule) },
            shadowCounted: shadowCounted,
            shadowPairs: pairs.sorted { (($0.live != $0.shadow) ? 1 : 0, $0.count) > (($1.live != $1.shadow) ? 1 : 0, $1.count) },
            disagreements: pairs.filter { $0.live != $0.shadow }.reduce(0) { $0 + $1.count },
            attestationRequiredPercent: attestationRequiredPercent
        )
    }
}
