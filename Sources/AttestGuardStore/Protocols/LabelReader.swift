/// Reads stored labels: the store's own, or a SQLite store's opened read-only beside the server (the backtest).
public protocol LabelReader: Sendable {
    /// Every label of the app (of every app when nil), by app, kind, subject and source.
    func labels(appId: String?) async throws -> [FraudLabelRecord]
}
