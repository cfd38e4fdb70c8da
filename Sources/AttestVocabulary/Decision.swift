/// What a verdict tells the gateway to do with a request: serve it, hold it for review, or refuse it.
///
/// One type for every layer: a rule's hard decision, the verdict returned, the app's `onStoreError` fallback and
/// the decision log's columns. Cases are ordered by severity (`allow < review < deny`).
public enum Decision: String, Sendable, Hashable, Codable, CaseIterable, Comparable, CustomStringConvertible {
    case allow
    case review
    case deny

    public static func < (lhs: Decision, rhs: Decision) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    public var description: String { rawValue }
}
