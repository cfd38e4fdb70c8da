public import Foundation

/// The state AttestGuard owns: one-time challenges, the key registry with counters, each key's receipt with its
/// refresh schedule and risk-metric history (``ReceiptScheduleStore``), DeviceCheck bits and validations
/// (``DeviceCheckStore``), the analysts' reads of history and decisions (``HistoryStore``) and the console's bounded
/// aggregates (``ConsoleStore``), the fraud team's labels (``LabelStore``), each app's daily risk-metric baselines
/// (``RiskBaselineStore``) the keys retired, for session tokens (``RetiredKeyStore``), the
/// developers' debug tokens (``DebugTokenStore``), the analysts' run-time lists (``ManagedListStore``) and the
/// sightings behind distinct counts (``DistinctCountStore``), the analysts' review queue (``ReviewQueueStore``) and the
/// webhook outbox (``WebhookOutboxStore``).
///
/// Every method that changes state does so atomically: a conditional statement per condition inside one
/// transaction, never read-then-write. Refusals come back as ``StoreRejection`` values inside the outcome;
/// thrown ``StoreError``s mean the store itself failed (``StoreError/Code/unavailable`` for an unreachable
/// database).
public protocol RiskStore: ReceiptScheduleStore, DeviceCheckStore, VelocityStore, DecisionLogStore, HistoryStore, ConsoleStore, GatewayCheckStore,
    ServerProcessStore, AppPolicyOverrideStore, DistinctCountStore, AttestationRampStore, LabelStore, RiskBaselineStore, RetiredKeyStore, DebugTokenStore,
    ManagedListStore, RuleActionStore, ReviewQueueStore, ActiveKeyListing, WebhookOutboxStore, KeySweepClaimStore
{
    /// Stores a challenge unless the user already holds `quota.maximumPerUser` challenges issued within
    /// `quota.window` (challenges without a user are not counted).
    func issueChallenge(_ challenge: NewChallenge, quota: ChallengeQuota) async throws -> ChallengeIssueOutcome

    /// The challenge with this id, consumed or not.
    func challenge(id: Data) async throws -> ChallengeRecord?

    /// Registers an attested key: consumes the challenge, inserts the key and its receipt, and supersedes the
    /// user's other active keys with the same device id, all in one transaction. Submitting the same attestation
    /// again for the same user answers ``KeyRegistrationOutcome/alreadyRegistered(_:)`` without consuming anything.
    func registerKey(_ registration: KeyRegistration) async throws -> KeyRegistrationOutcome

    /// The key, whatever its status.
    func key(appId: String, keyId: Data) async throws -> KeyRecord?

    /// How many keys of this user on this device were superseded (by later attestations).
    func supersededKeyCount(appId: String, userId: String, deviceId: String) async throws -> Int

    /// Consumes the assertion's challenge and advances the key's counter in one transaction.
    func commitAssertion(_ commit: AssertionCommit) async throws -> AssertionCommitOutcome

    /// ``commitAssertion(_:)`` and, when it committed, ``scoringFacts(_:)`` of `query`, as they were just before the
    /// commit: on PostgreSQL one statement, so an accepted assertion and its verdict's facts cost one round trip.
    /// Of the facts the commit changes, the key's counter and last assertion are the caller's to apply
    /// (``ScoringFacts/committing(_:)``). The facts are nil when nothing was asked, or when they could not be read
    /// after a commit that succeeded.
    func commitAssertion(_ commit: AssertionCommit, readingFacts query: ScoringFactsQuery) async throws -> (AssertionCommitOutcome, ScoringFacts?)

    /// Revokes a key for good. Returns the key as it now is, or `nil` if it is unknown. Revoking a revoked key
    /// changes nothing.
    func revokeKey(appId: String, keyId: Data, at: Date) async throws -> KeyRecord?

    /// The key's current receipt.
    func receipt(appId: String, keyId: Data) async throws -> ReceiptRecord?

    /// Everything a verdict reads about a key and the request's subjects, from one snapshot: on PostgreSQL one
    /// statement, so a verdict costs one round trip however many of these facts its rules use.
    func scoringFacts(_ query: ScoringFactsQuery) async throws -> ScoringFacts

    /// Deletes challenges that expired before `cutoff`; returns how many.
    func purgeChallenges(expiredBefore cutoff: Date) async throws -> Int

    /// Succeeds when the database answers a trivial query.
    func checkHealth() async throws
}
