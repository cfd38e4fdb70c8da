public import Foundation

/// Reads the decision log in time order, as backtests do: a store's own log, or a SQLite store's opened read-only
/// beside the server that writes it (``SQLiteDecisionLogReader``).
public protocol DecisionLogReader: Sendable {
    /// Entries decided at or after `since`, in (decidedAt, sequence) order, at most `limit`, after `cursor` (the
    /// last entry of the previous page).
    func decisions(since: Date, after cursor: DecisionLogEntry?, limit: Int) async throws -> [DecisionLogEntry]
}
