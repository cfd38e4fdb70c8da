public import AttestGuardStore
/// How an app's active keys spread over Apple's risk metric (the keys attested on the device in 30 days), in the
/// bands an analyst reads it by, beside the exact counts.
public struct RiskMetricReport: Sendable {
    /// One band of risk metrics and the keys in it.
    public struct Band: Sendable, Hashable {
        /// `1`, `2`, `3-5`, ..., `51+`, or `unknown` for keys whose receipt was not redeemed yet.
        public var label: String
        public var keys: Int
    }

    /// The bands' lower bounds; each reaches to the next one's, the last is open.
    static let lowerBounds = [0, 1, 2, 3, 6, 11, 21, 51]

    public var appId: String
    public var bands: [Band]
    /// Every risk metric seen, with its keys, in order (unknown last).
    public var counts: [RiskMetricCount]
    public var keys: Int
    /// Whether the app has more active keys than were counted (``ConsoleReports/maximumKeys``).
    public var truncated: Bool

    init(appId: String, counts: [RiskMetricCount], limit: Int) {
        var bands = Self.lowerBounds.indices.map { index -> Band in
            let lower = Self.lowerBounds[index]
            let next = index + 1 < Self.lowerBounds.count ? Self.lowerBounds[index + 1] : nil
            let label = switch next {
            case nil: "\(lower)+"
            case let next? where next == lower + 1: "\(lower)"
            case let next?: "\(lower)-\(next - 1)"
            }
            return Band(label: label, keys: 0)
        }
        bands.append(Band(label: "unknown", keys: 0))
        for count in counts {
            guard let metric = count.riskMetric else {
                bands[bands.count - 1].keys += count.keys
                continue
            }
            let index = Self.lowerBounds.lastIndex { $0 <= metric } ?? 0
            bands[index].keys += count.keys
        }
        self.appId = appId
        self.bands = bands
        self.counts = counts.filter { $0.riskMetric != nil } + counts.filter { $0.riskMetric == nil }
        self.keys = counts.reduce(0) { $0 + $1.keys }
        self.truncated = keys >= limit
    }
}
