public import Foundation

/// One page of a decision search.
public struct DecisionPage: Sendable, Hashable {
    public var appId: String
    /// The range searched, `[from, to)`.
    public var from: Date
    public var to: Date
    /// Newest first.
    public var decisions: [LoggedDecision]
    /// Where the next page starts; `nil` when this page holds the last of the range.
    public var next: DecisionCursor?
}
