public import AttestGuardStore
import AttestVocabulary
public import Foundation
import Metrics
import RiskRules
import Synchronization

/// Notes the `review` verdicts that open review items, on the request path, and writes them behind it: verdicts
/// about one subject fold into one pending opening (so a farm key asserting a hundred times a second costs one row
/// a second), and ``flush(now:)``, which the write-behind service calls every second, opens or folds them into the
/// store's items. Bounded: past ``maximumPending`` subjects a new one is dropped and counted. A process that dies
/// loses the openings it had not written, as it loses its unwritten decision-log entries.
public final class ReviewQueueRecorder: Sendable {
    /// The most subjects waiting to be written.
    public let maximumPending: Int
    let store: any ReviewQueueStore
    private let pending = Mutex(Pending())
    /// The openings by subject, each with the order its subject was first noted in, so that items open in that order.
    private struct Pending {
        var openings: [String: (order: Int, opening: ReviewOpening)] = [:]
        var noted = 0
    }
    private let dropped = Counter(label: MetricFamily.reviewOpeningsDropped.name)

    public init(store: any ReviewQueueStore, maximumPending: Int = 10_000) {
        self.store = store
        self.maximumPending = max(1, maximumPending)
    }

    /// Notes `outcome` when it opens an item under the app's review policy: the rules decided `review` (not a
    /// fallback for a store outage or a failed verdict, which say nothing about the subject) for a chosen action.
    func note(_ evaluation: RuleEvaluation, request: ScoreRequest, subjects: HashedSubjects, policy: ReviewPolicy?, at now: Date) {
        let fallback = evaluation.fired.isEmpty && evaluation.decidedBy.flatMap(FallbackReason.init(rawValue:)) != nil
        guard let policy, evaluation.decision == .review, !fallback, policy.opens(action: request.action) else { return }
        let keyId = request.keyId?.base64
        let subject: (LabelSubjectKind, String)? =
            if let keyId { (.key, keyId) }
            else if let user = subjects.user { (.user, user) }
            else if let device = subjects.device { (.device, device) }
            else if let requestId = request.requestId { (.decision, requestId) }
            else { nil }
        guard let (kind, value) = subject else { return }
        let opening = ReviewOpening(
            appId: request.appId, subjectKind: kind, subject: value, keyId: keyId, userHash: subjects.user, deviceHash: subjects.device,
            endpoint: request.endpoint, action: request.action, score: evaluation.score, fired: evaluation.fired.map(\.id).joined(separator: ","),
            ruleSetVersion: evaluation.ruleSetVersion, requestId: request.requestId, at: now, expiresAt: now.addingTimeInterval(policy.itemLifetime)
        )
        let admitted = add([opening])
        if admitted == 1 {
            Counter(label: MetricFamily.reviewOpenings.name, dimensions: [("app", request.appId)]).increment()
        }
    }

    /// Folds `openings` into the pending ones; returns how many found room.
    @discardableResult
    private func add(_ openings: [ReviewOpening]) -> Int {
        let (admitted, refused) = pending.withLock { pending -> (Int, Int) in
            var admitted = 0
            for opening in openings {
                if var held = pending.openings[opening.identity] {
                    held.opening.fold(opening)
                    pending.openings[opening.identity] = held
                } else if pending.openings.count < maximumPending {
                    pending.noted += 1
                    pending.openings[opening.identity] = (pending.noted, opening)
                } else {
                    continue
                }
                admitted += 1
            }
            return (admitted, openings.count - admitted)
        }
        if refused > 0 { dropped.increment(by: refused) }
        return admitted
    }

    /// How many subjects wait to be written.
    public var queued: Int { pending.withLock { $0.openings.count } }

    /// Writes every pending opening in one transaction; on failure they go back to wait for the next flush (folded
    /// with any noted meanwhile).
    public func flush(now: Date) async throws {
        // In the order the subjects were first noted, so that the items' ids follow it.
        let openings = pending.withLock { pending in
            defer { pending.openings.removeAll() }
            return pending.openings.values.sorted { $0.order < $1.order }.map(\.opening)
        }
        guard !openings.isEmpty else { return }
        do {
            try await withStore { try await store.openReviewItems(openings, now: now) }
        } catch {
            add(openings)
            throw error
        }
    }

    /// Drops every pending opening, counting them: for a shutdown whose last flush ran out of time.
    public func dropPending() -> Int {
        let count = pending.withLock { pending in
            defer { pending.openings.removeAll() }
            return pending.openings.count
        }
        if count > 0 { dropped.increment(by: count) }
        return count
    }
}
