public import Foundation

/// The decision log: written in batches off the request path, read in time order for backtests, kept a number
/// of days.
public protocol DecisionLogStore: DecisionLogReader {
    /// Appends entries (creating day partitions as needed on PostgreSQL).
    func appendDecisions(_ entries: [DecisionLogEntry]) async throws

    /// Deletes entries decided before `before` (whole day partitions on PostgreSQL); returns how many days or rows.
    func purgeDecisions(before: Date) async throws -> Int
}
