public import Foundation

/// The time ranges the console's charts cover, each cut into buckets of one size. Seven days is the longest: an
/// aggregate page reads at most ``ConsoleReports/maximumVerdicts`` verdicts of it, whatever the log holds.
public enum ConsoleRange: String, Sendable, CaseIterable {
    case hour = "1h"
    case sixHours = "6h"
    case day = "24h"
    case week = "7d"

    /// The range when the page names none.
    public static let standard = ConsoleRange.day

    /// How far back the range reaches from now.
    public var duration: TimeInterval {
        switch self {
        case .hour: 3_600
        case .sixHours: 6 * 3_600
        case .day: 86_400
        case .week: 7 * 86_400
        }
    }

    /// The width of one bucket of the charts.
    public var bucket: TimeInterval {
        switch self {
        case .hour: 300
        case .sixHours: 1_800
        case .day: 3_600
        case .week: 6 * 3_600
        }
    }

    /// How many buckets the range holds.
    public var bucketCount: Int { Int(duration / bucket) }

    /// The buckets' bounds for a range ending at `now`: the last bucket ends at the next bucket boundary after
    /// `now`, so that a bucket always covers the same clock interval whenever the page is loaded.
    public func window(endingAt now: Date) -> (from: Date, to: Date) {
        let end = ((now.timeIntervalSince1970 / bucket).rounded(.down) + 1) * bucket
        return (Date(timeIntervalSince1970: end - duration), Date(timeIntervalSince1970: end))
    }
}
