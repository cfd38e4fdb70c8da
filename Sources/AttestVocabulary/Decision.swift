/// What a verdict tells the gateway to do with a request: serve it, hold it for review, or refuse it.
///
/// One type for every layer: a rule's hard decision, the verdict returned, the app's `onStoreError` fallback and
/// the decision log's columns. Which decision wins is the rule set's to say (`RuleSet.evaluate`), not an order
/// of the cases.
public enum Decision: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case allow
    case review
    case deny

    public var description: String { rawValue }
}
