public import AttestVocabulary
public import Foundation

/// Each app's review queue: items opened by `review` verdicts of the app's chosen actions, claimed and decided by
/// analysts. A decision and the label it gives the item's subject are stored in one transaction.
public protocol ReviewQueueStore: Sendable {
    /// Marks pending items past their expiry `expired`, then opens an item for each opening, or folds it into the
    /// pending item about the same subject (its latest facts, its verdicts added), in one transaction.
    func openReviewItems(_ openings: [ReviewOpening], now: Date) async throws

    /// Items of one app that `filter` admits at `now`, at most `limit`: the queue oldest first (by id, after
    /// `cursor`), the others latest first (by id, before `cursor`).
    func reviewItems(appId: String, filter: ReviewItemFilter, cursor: Int64?, limit: Int, now: Date) async throws -> [ReviewItemRecord]

    /// One item of one app.
    func reviewItem(appId: String, id: Int64) async throws -> ReviewItemRecord?

    /// Claims or decides an item if it still yields to the analyst (``ReviewItemRecord/yields(to:at:)``), the check
    /// and the change one atomic step; a decision stores its label (``ReviewItemChange/label(of:)``) with it.
    func changeReviewItem(_ change: ReviewItemChange) async throws -> ReviewItemChangeOutcome

    /// Records how a decided item's follow-ups ended (one a line).
    func recordReviewFollowUps(appId: String, id: Int64, followUps: String) async throws

    /// Deletes items decided, or expired, before `instant`; returns how many.
    func purgeReviewItems(closedBefore instant: Date) async throws -> Int
}
