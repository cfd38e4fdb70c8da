public import AttestGuardStore
import AttestVocabulary
import EventLoopConcurrency
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
    /// The openings by subject (``ReviewOpening/identity``).
    private let pending = Mutex<[String: ReviewOpening]>([:])
    /// Flushes run one at a time, so that a flush returns only once every opening noted before it began is written
    /// (or back in the map after a failure): a caller never races the write-behind service's flush in flight.
    private let flushes = AsyncSerialGate()
    private let dropped = Counter(label: MetricFamily.reviewOpeningsDropped.name)

    public init(store: any ReviewQueueStore, maximumPending: Int = 10_000) {
        self.store = store
        self.maximumPending = max(1, maximumPending)
    }

    /// Notes `outcome` when it opens an item under the app's review policy: the rules decided `review` (not a
    /// fallback for a store outage or a failed verdict, which say nothing about the subject) for a chosen action.
    func note(_ evaluation: RuleEvaluation, request: ScoreRequest, subjects: HashedSubjects, policy: ReviewPolicy?, at now: Date) {
        guard let policy, evaluation.decision == .review, !evaluation.isFallback, policy.opens(action: request.action),
            let subject = VerdictSubject(request: request, subjects: subjects)
        else { return }
        let opening = ReviewOpening(
            appId: request.appId, subjectKind: subject.kind, subject: subject.value, keyId: request.keyId?.base64, userHash: subjects.user, deviceHash: subjects.device,
            endpoint: request.endpoint, action: request.action, score: evaluation.score, fired: evaluation.fired.map(\.id).joined(separator: ","),
            ruleSetVersion: evaluation.ruleSetVersion, requestId: request.requestId, at: now, expiresAt: now.addingTimeInterval(policy.itemLifetime)
        )
        let admitted = pending.withLock { pending -> Bool in
            if var held = pending[opening.identity] {
                held.fold(opening)
                pending[opening.identity] = held
                return true
            }
            guard pending.count < maximumPending else { return false }
            pending[opening.identity] = opening
            return true
        }
        if admitted {
            Counter(label: MetricFamily.reviewOpenings.name, dimensions: [("app", request.appId)]).increment()
        } else {
            dropped.increment()
        }
    }

    /// How many subjects wait to be written.
    public var queued: Int { pending.withLock { $0.count } }

    /// Writes every pending opening in one transaction; on failure they go back to wait for the next flush, the
    /// verdicts noted meanwhile folded into them (they are the later ones). A flush called while another runs waits
    /// for it, then writes what is left.
    public func flush(now: Date) async throws {
        try await flushes.run { try await self.flushOnce(now: now) }
    }

    private func flushOnce(now: Date) async throws {
        let openings = pending.withLock { pending in
            defer { pending.removeAll() }
            return Array(pending.values)
        }
        guard !openings.isEmpty else { return }
        do {
            try await withStore { try await store.openReviewItems(openings, now: now) }
        } catch {
            putBack(openings)
            throw error
        }
    }

    /// Returns openings a failed write took: each keeps its place, and a later opening of its subject folds into it;
    /// past the bound the rest are dropped and counted.
    private func putBack(_ openings: [ReviewOpening]) {
        let refused = pending.withLock { pending -> Int in
            var refused = 0
            for var opening in openings {
                if let later = pending[opening.identity] {
                    opening.fold(later)
                } else if pending.count >= maximumPending {
                    refused += 1
                    continue
                }
                pending[opening.identity] = opening
            }
            return refused
        }
        if refused > 0 { dropped.increment(by: refused) }
    }

    /// Drops every pending opening, counting them: for a shutdown whose last flush ran out of time.
    public func dropPending() -> Int {
        let count = pending.withLock { pending in
            defer { pending.removeAll() }
            return pending.count
        }
        if count > 0 { dropped.increment(by: count) }
        return count
    }
}
