public import Foundation

/// An app's risk-metric baseline for one UTC day: the distribution of the current receipts' risk metrics over the
/// app's active keys that have one, as the daily job computed it. Apple says most devices have one to three keys and
/// asks each app to learn its own normal; this is that normal, kept per day as history.
///
/// Percentiles are nearest-rank: the p-th percentile is the smallest metric `m` such that at least p % of the keys
/// have a metric at or below `m` (the value at rank ⌈p/100 × N⌉ of the ordered metrics; PostgreSQL's
/// `percentile_disc`). A key's percentile (``percentile(of:)``) is the share of the app's keys, in percent, whose
/// metric is at or below the key's: so `percentile(of: m) >= 99` exactly when `m >= p99`.
public struct RiskMetricBaseline: Sendable, Hashable {
    public var appId: String
    /// The UTC day, `YYYY-MM-DD`.
    public var day: String
    public var computedAt: Date
    /// The process that computed it (the receipt scheduler's owner name).
    public var computedBy: String
    /// Active keys with a risk metric.
    public var keyCount: Int
    /// Nil when no key has a metric.
    public var p50: Int?
    public var p90: Int?
    public var p99: Int?
    /// The share (0-1) of the keys with a metric of 4 or more.
    public var shareAtLeast4: Double
    /// The share (0-1) of the keys with a metric of 10 or more.
    public var shareAtLeast10: Double
    /// Metric to the number of keys that have it.
    public var histogram: [Int: Int]

    public init(
        appId: String, day: String, computedAt: Date, computedBy: String, keyCount: Int, p50: Int?, p90: Int?, p99: Int?,
        shareAtLeast4: Double, shareAtLeast10: Double, histogram: [Int: Int]
    ) {
        self.appId = appId
        self.day = day
        self.computedAt = computedAt
        self.computedBy = computedBy
        self.keyCount = keyCount
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.shareAtLeast4 = shareAtLeast4
        self.shareAtLeast10 = shareAtLeast10
        self.histogram = histogram
    }

    /// The baseline of a histogram (metric -> keys), with percentiles and shares computed from it.
    public init(appId: String, day: String, computedAt: Date, computedBy: String, histogram: [Int: Int]) {
        let count = histogram.values.reduce(0, +)
        let atLeast = { (bound: Int) in count == 0 ? 0 : Double(histogram.filter { $0.key >= bound }.values.reduce(0, +)) / Double(count) }
        self.init(
            appId: appId, day: day, computedAt: computedAt, computedBy: computedBy, keyCount: count,
            p50: Self.nearestRank(50, of: histogram), p90: Self.nearestRank(90, of: histogram), p99: Self.nearestRank(99, of: histogram),
            shareAtLeast4: atLeast(4), shareAtLeast10: atLeast(10), histogram: histogram
        )
    }

    /// The nearest-rank `percent`-th percentile of the histogram's values: the value at rank ⌈percent/100 × N⌉
    /// (integer arithmetic), nil when it is empty.
    public static func nearestRank(_ percent: Int, of histogram: [Int: Int]) -> Int? {
        let count = histogram.values.reduce(0, +)
        guard count > 0 else { return nil }
        let rank = max(1, (percent * count + 99) / 100)
        var seen = 0
        for (metric, keys) in histogram.sorted(by: { $0.key < $1.key }) {
            seen += keys
            if seen >= rank { return metric }
        }
        return histogram.keys.max()
    }

    /// The share of the app's keys, in percent (0-100), whose metric is at or below `metric`; nil when no key has
    /// a metric.
    public func percentile(of metric: Int) -> Double? {
        guard keyCount > 0 else { return nil }
        // Read on every verdict that names a key with a metric: a sum over the histogram, no copy of it.
        let atOrBelow = histogram.reduce(0) { sum, entry in entry.key <= metric ? sum + entry.value : sum }
        return 100 * Double(atOrBelow) / Double(keyCount)
    }

    /// The histogram as the stored JSON object (`{"0":120,"1":60}`, keys sorted).
    package var histogramJSON: String {
        let object = Dictionary(uniqueKeysWithValues: histogram.map { (String($0.key), $0.value) })
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The stored JSON object read back; entries that are not metric -> count are left out.
    package static func histogram(json: String) -> [Int: Int] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] else { return [:] }
        var histogram: [Int: Int] = [:]
        for (key, value) in object {
            guard let metric = Int(key), let count = (value as? NSNumber)?.intValue else { continue }
            histogram[metric] = count
        }
        return histogram
    }
}

/// What computing a day's baseline came to.
public enum RiskBaselineOutcome: Sendable, Hashable {
    /// This call computed and stored it.
    case computed(RiskMetricBaseline)
    /// Another call (this process or another) had already stored the app's baseline for that day.
    case alreadyComputed
}
