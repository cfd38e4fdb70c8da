/// Why a verdict was decided without the rules, as its one reason's `ruleId` and the decision log's `decidedBy`.
///
/// A verdict always comes back once a request's effect is committed; these name the two ways it can come from the
/// app's policy instead of the rule set.
public enum FallbackReason: String, Sendable, Hashable, CaseIterable {
    /// The store did not answer while the signals were read: the app's `onStoreError` decides.
    case storeUnavailable = "store_unavailable"
    /// Scoring failed for another reason after the commit: the verdict is `review`.
    case scoringFailed = "scoring_failed"
}
