/// The fraud team's verdicts on a traffic run's checked requests, as `POST /v1/labels` takes them: every checked
/// verdict of a persona the team labels (``PersonaExpectations/label(for:)``), named by the request id the server
/// logged it under. The demo posts them, then measures the rules against them.
public enum CaseLabels {
    /// One label of the route's body.
    public struct Label: Encodable, Sendable, Hashable {
        public var appId: String
        public var requestId: String
        public var label: String
        public var source: String
    }

    /// The route's body for a batch (at most ``batchSize`` labels).
    public struct Batch: Encodable, Sendable {
        public var labels: [Label]
    }

    /// What the labels say they come from.
    public static let source = "demo-case-review"
    /// The most labels the route takes in one request.
    public static let batchSize = 1_000

    /// The labels of `results`' checked verdicts, persona by persona; verdicts without a request id are skipped.
    public static func labels(for results: [PersonaResult], appId: String) -> [Label] {
        results.flatMap { result -> [Label] in
            guard let label = PersonaExpectations.label(for: result.persona) else { return [] }
            return result.outcomes.compactMap { $0.verdict?.requestId }.map {
                Label(appId: appId, requestId: $0, label: label.rawValue, source: source)
            }
        }
    }

    /// `labels` in the route's batches.
    public static func batches(_ labels: [Label]) -> [Batch] {
        stride(from: 0, to: labels.count, by: batchSize).map { Batch(labels: Array(labels[$0..<min($0 + batchSize, labels.count)])) }
    }
}
