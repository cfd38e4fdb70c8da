public import AttestGuardWire

/// The fraud team's verdicts on a traffic run's checked requests, as `POST /v1/labels` takes them: every checked
/// verdict of a persona the team labels (``PersonaExpectations/label(for:)``), named by the request id the server
/// logged it under. The demo posts them, then measures the rules against them.
public enum CaseLabels {
    /// What the labels say they come from.
    public static let source = "demo-case-review"
    /// The most labels the route takes in one request.
    public static let batchSize = 1_000

    /// The labels of `results`' checked verdicts, persona by persona; verdicts without a request id are skipped, and
    /// so are the personas the analyst labels in the review queue (``PersonaExpectations/decidedInReviewQueue``).
    public static func labels(for results: [PersonaResult], appId: String) -> [LabelFields] {
        results.flatMap { result -> [LabelFields] in
            guard !PersonaExpectations.decidedInReviewQueue.contains(result.persona),
                let label = PersonaExpectations.label(for: result.persona)
            else { return [] }
            return result.outcomes.compactMap { $0.verdict?.requestId }.map {
                LabelFields(appId: appId, requestId: $0, label: label.rawValue, source: source)
            }
        }
    }

    /// `labels` in the route's batches.
    public static func batches(_ labels: [LabelFields]) -> [LabelBatchBody] {
        stride(from: 0, to: labels.count, by: batchSize).map { LabelBatchBody(labels: Array(labels[$0..<min($0 + batchSize, labels.count)])) }
    }
}
