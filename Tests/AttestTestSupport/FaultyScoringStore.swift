public import AttestVocabulary
public import Foundation
public import AttestGuardStore
import Synchronization

/// A store that answers as the store it wraps, except that scoring reads fail with an error the test chooses: the
/// way to reach the steps that run after a commit (scoring an accepted assertion or a registered key) with a fault.
public final class FaultyScoringStore: RiskStore {
    private let base: any RiskStore
    private let scoringFault = Mutex<(any Error)?>(nil)
    private let keyFault = Mutex<(any Error)?>(nil)
    private let retiredKeysFault = Mutex<(any Error)?>(nil)
    private let ruleActionFault = Mutex<(any Error)?>(nil)
    private let reviewOpeningFault = Mutex<(any Error)?>(nil)

    public init(_ base: any RiskStore) {
        self.base = base
    }

    /// Makes every later ``scoringFacts(_:)`` throw `error` (`nil`: answer again).
    public func failScoring(with error: (any Error)?) {
        scoringFault.withLock { $0 = error }
    }

    /// Makes every later ``key(appId:keyId:)`` throw `error` (`nil`: answer again): the first read of an assertion.
    public func failKeyLookups(with error: (any Error)?) {
        keyFault.withLock { $0 = error }
    }

    /// Makes every later ``retiredKeys(after:limit:)`` throw `error` (`nil`: answer again).
    public func failRetiredKeys(with error: (any Error)?) {
        retiredKeysFault.withLock { $0 = error }
    }

    /// Makes every later ``openReviewItems(_:now:)`` throw `error` (`nil`: answer again).
    public func failReviewOpenings(with error: (any Error)?) {
        reviewOpeningFault.withLock { $0 = error }
    }

    /// Makes every later ``claimRuleAction(_:)`` throw `error` (`nil`: answer again).
    public func failRuleActionClaims(with error: (any Error)?) {
        ruleActionFault.withLock { $0 = error }
    }

    public func scoringFacts(_ query: ScoringFactsQuery) async throws -> ScoringFacts {
        if let error = scoringFault.withLock({ $0 }) { throw error }
        return try await base.scoringFacts(query)
    }

    public func issueChallenge(_ challenge: NewChallenge, quota: ChallengeQuota) async throws -> ChallengeIssueOutcome {
        try await base.issueChallenge(challenge, quota: quota)
    }
    public func challenge(id: Data) async throws -> ChallengeRecord? { try await base.challenge(id: id) }
    public func registerKey(_ registration: KeyRegistration) async throws -> KeyRegistrationOutcome { try await base.registerKey(registration) }
    public func key(appId: String, keyId: Data) async throws -> KeyRecord? {
        if let error = keyFault.withLock({ $0 }) { throw error }
        return try await base.key(appId: appId, keyId: keyId)
    }
    public func supersededKeyCount(appId: String, userId: String, deviceId: String) async throws -> Int {
        try await base.supersededKeyCount(appId: appId, userId: userId, deviceId: deviceId)
    }
    public func commitAssertion(_ commit: AssertionCommit) async throws -> AssertionCommitOutcome { try await base.commitAssertion(commit) }
    public func revokeKey(appId: String, keyId: Data, at: Date) async throws -> KeyRecord? { try await base.revokeKey(appId: appId, keyId: keyId, at: at) }
    public func createDebugToken(_ token: DebugTokenRecord) async throws -> Bool { try await base.createDebugToken(token) }
    public func debugTokens(appId: String, limit: Int) async throws -> [DebugTokenRecord] { try await base.debugTokens(appId: appId, limit: limit) }
    public func debugToken(secretSha256: Data) async throws -> DebugTokenRecord? { try await base.debugToken(secretSha256: secretSha256) }
    public func revokeDebugToken(appId: String, id: String, at: Date) async throws -> DebugTokenRecord? {
        try await base.revokeDebugToken(appId: appId, id: id, at: at)
    }
    public func addDebugTokenUses(_ uses: [DebugTokenUse]) async throws { try await base.addDebugTokenUses(uses) }
    public func createManagedList(_ list: ManagedListRecord, maximumLists: Int) async throws -> ManagedListCreateOutcome {
        try await base.createManagedList(list, maximumLists: maximumLists)
    }
    public func managedLists() async throws -> [ManagedListRecord] { try await base.managedLists() }
    public func managedList(name: String) async throws -> ManagedListRecord? { try await base.managedList(name: name) }
    public func managedListEntries(name: String, now: Date) async throws -> [ManagedListEntryRecord] {
        try await base.managedListEntries(name: name, now: now)
    }
    public func changeManagedList(
        name: String, edit: ManagedListEdit, actor: String, at: Date, maximumEntries: Int, expectedKind: ListKind?
    ) async throws -> ManagedListChangeOutcome {
        try await base.changeManagedList(name: name, edit: edit, actor: actor, at: at, maximumEntries: maximumEntries, expectedKind: expectedKind)
    }
    public func deleteManagedList(name: String, actor: String, at: Date) async throws -> Bool {
        try await base.deleteManagedList(name: name, actor: actor, at: at)
    }
    public func managedListChanges(name: String?, limit: Int) async throws -> [ManagedListChangeRecord] {
        try await base.managedListChanges(name: name, limit: limit)
    }
    public func retiredKeys(after cursor: RetiredKey.Cursor, limit: Int) async throws -> [RetiredKey] {
        if let error = retiredKeysFault.withLock({ $0 }) { throw error }
        return try await base.retiredKeys(after: cursor, limit: limit)
    }
    public func receipt(appId: String, keyId: Data) async throws -> ReceiptRecord? { try await base.receipt(appId: appId, keyId: keyId) }
    public func purgeChallenges(expiredBefore cutoff: Date) async throws -> Int { try await base.purgeChallenges(expiredBefore: cutoff) }
    public func checkHealth() async throws { try await base.checkHealth() }
    public func leaseDueReceipts(_ request: ReceiptLeaseRequest) async throws -> [ReceiptLease] { try await base.leaseDueReceipts(request) }
    public func replaceReceipt(_ replacement: ReceiptReplacement) async throws -> ReceiptReplacementOutcome { try await base.replaceReceipt(replacement) }
    public func recordReceiptAttempt(_ attempt: ReceiptAttempt) async throws -> Bool { try await base.recordReceiptAttempt(attempt) }
    public func receiptBacklog(at now: Date, retryingSince: Date) async throws -> ReceiptBacklog {
        try await base.receiptBacklog(at: now, retryingSince: retryingSince)
    }
    public func riskMetricHistory(appId: String, keyId: Data) async throws -> [RiskMetricObservation] {
        try await base.riskMetricHistory(appId: appId, keyId: keyId)
    }
    public func recordKeyUse(_ uses: [KeyUse]) async throws -> Int { try await base.recordKeyUse(uses) }
    public func parkDormantReceipts(unusedSince cutoff: Date, at now: Date, limit: Int) async throws -> DormantParking {
        try await base.parkDormantReceipts(unusedSince: cutoff, at: now, limit: limit)
    }
    public func rejoinDormantReceipts(usedSince cutoff: Date) async throws -> Int { try await base.rejoinDormantReceipts(usedSince: cutoff) }
    public func storeDeviceCheckBits(_ record: DeviceCheckRecord) async throws { try await base.storeDeviceCheckBits(record) }
    public func deviceCheckBits(scope: DeviceCheckScope, environment: AppAttestEnvironment, subject: DeviceCheckSubject) async throws -> DeviceCheckRecord? {
        try await base.deviceCheckBits(scope: scope, environment: environment, subject: subject)
    }
    public func purgeLegacyDeviceCheckBits(observedBefore cutoff: Date) async throws -> Int {
        try await base.purgeLegacyDeviceCheckBits(observedBefore: cutoff)
    }
    public func recordDeviceCheckValidation(_ record: DeviceCheckValidationRecord) async throws { try await base.recordDeviceCheckValidation(record) }
    public func deviceCheckValidation(appId: String, userId: String) async throws -> DeviceCheckValidationRecord? {
        try await base.deviceCheckValidation(appId: appId, userId: userId)
    }
    public func appendDecisions(_ entries: [DecisionLogEntry]) async throws { try await base.appendDecisions(entries) }
    public func decisions(since: Date, after cursor: DecisionLogEntry?, limit: Int) async throws -> [DecisionLogEntry] {
        try await base.decisions(since: since, after: cursor, limit: limit)
    }
    public func purgeDecisions(before: Date) async throws -> Int { try await base.purgeDecisions(before: before) }
    public func recentRiskMetrics(appId: String, keyId: Data, limit: Int) async throws -> [RiskMetricObservation] {
        try await base.recentRiskMetrics(appId: appId, keyId: keyId, limit: limit)
    }
    public func searchDecisions(_ search: DecisionSearch) async throws -> [DecisionLogEntry] { try await base.searchDecisions(search) }
    public func verdictSample(appId: String, from: Date, to: Date, limit: Int) async throws -> [VerdictSample] {
        try await base.verdictSample(appId: appId, from: from, to: to, limit: limit)
    }
    public func riskMetricCounts(appId: String, limit: Int) async throws -> [RiskMetricCount] {
        try await base.riskMetricCounts(appId: appId, limit: limit)
    }
    public func addGatewayChecks(_ counts: [GatewayCheckCount]) async throws { try await base.addGatewayChecks(counts) }
    public func gatewayChecks(appId: String, from: Int64, to: Int64, limit: Int) async throws -> [GatewayCheckCount] {
        try await base.gatewayChecks(appId: appId, from: from, to: to, limit: limit)
    }
    public func purgeGatewayChecks(before: Int64) async throws -> Int { try await base.purgeGatewayChecks(before: before) }
    public func recordServerProcess(_ record: ServerProcessRecord) async throws { try await base.recordServerProcess(record) }
    public func serverProcesses(seenSince since: Date) async throws -> [ServerProcessRecord] { try await base.serverProcesses(seenSince: since) }
    public func appPolicyOverrides() async throws -> [AppPolicyOverride] { try await base.appPolicyOverrides() }
    public func replaceAppPolicyOverride(_ override: AppPolicyOverride, expectedRevision: Int64) async throws -> Bool {
        try await base.replaceAppPolicyOverride(override, expectedRevision: expectedRevision)
    }
    public func countAttestationOutcome(appId: String, periodStart: Int64, outcome: AttestationOutcomeKind, count: Int64) async throws {
        try await base.countAttestationOutcome(appId: appId, periodStart: periodStart, outcome: outcome, count: count)
    }

    public func countAttestationOutcome(appId: String, periodStart: Int64, outcome: AttestationOutcomeKind, reporter: String) async throws -> Bool {
        try await base.countAttestationOutcome(appId: appId, periodStart: periodStart, outcome: outcome, reporter: reporter)
    }

    public func purgeAttestationOutcomeReporters(appId: String, before periodStart: Int64) async throws {
        try await base.purgeAttestationOutcomeReporters(appId: appId, before: periodStart)
    }
    public func attestationOutcomeCounts(appId: String, periodStart: Int64) async throws -> AttestationOutcomeCounts {
        try await base.attestationOutcomeCounts(appId: appId, periodStart: periodStart)
    }
    public func attestationRamps() async throws -> [AttestationRampRecord] { try await base.attestationRamps() }
    public func replaceAttestationRamp(_ ramp: AttestationRampRecord, expectedRevision: Int64) async throws -> Bool {
        try await base.replaceAttestationRamp(ramp, expectedRevision: expectedRevision)
    }
    public func storeLabels(_ labels: [FraudLabelRecord]) async throws -> [LabelWriteOutcome] { try await base.storeLabels(labels) }
    public func deleteLabels(appId: String, kind: LabelSubjectKind, subject: String, source: String?) async throws -> Int {
        try await base.deleteLabels(appId: appId, kind: kind, subject: subject, source: source)
    }
    public func labels(appId: String?) async throws -> [FraudLabelRecord] { try await base.labels(appId: appId) }
    public func labels(for decisions: [DecisionLogEntry]) async throws -> [FraudLabelRecord] { try await base.labels(for: decisions) }
    public func labels(appId: String, of subjects: [LabelLookup]) async throws -> [FraudLabelRecord] {
        try await base.labels(appId: appId, of: subjects)
    }
    public func decision(appId: String, requestId: String) async throws -> DecisionLogEntry? {
        try await base.decision(appId: appId, requestId: requestId)
    }
    public func computeRiskBaseline(appId: String, day: String, at now: Date, by owner: String) async throws -> RiskBaselineOutcome {
        try await base.computeRiskBaseline(appId: appId, day: day, at: now, by: owner)
    }
    public func latestRiskBaselines() async throws -> [RiskMetricBaseline] { try await base.latestRiskBaselines() }
    public func riskBaselineHistory(appId: String, limit: Int) async throws -> [RiskMetricBaseline] {
        try await base.riskBaselineHistory(appId: appId, limit: limit)
    }
    public func purgeServerProcesses(seenBefore before: Date) async throws -> Int { try await base.purgeServerProcesses(seenBefore: before) }
    public func addVelocity(_ increments: [VelocityIncrement], flush: VelocityFlush?) async throws { try await base.addVelocity(increments, flush: flush) }
    public func velocitySums(appId: String, _ sums: [VelocitySum], writer: String?) async throws -> VelocityReading {
        try await base.velocitySums(appId: appId, sums, writer: writer)
    }
    public func rollUpVelocity(granularity: Int, into coarser: Int, before: Int64, limit: Int) async throws -> Int {
        try await base.rollUpVelocity(granularity: granularity, into: coarser, before: before, limit: limit)
    }
    public func purgeVelocity(granularity: Int, before: Int64) async throws -> Int { try await base.purgeVelocity(granularity: granularity, before: before) }
    public func purgeVelocityFlushes(before: Date) async throws -> Int { try await base.purgeVelocityFlushes(before: before) }
    public func addDistinctSightings(_ sightings: [DistinctSighting]) async throws { try await base.addDistinctSightings(sightings) }
    public func distinctCounts(_ reads: [DistinctCountRead]) async throws -> [Int64] { try await base.distinctCounts(reads) }
    public func purgeDistinctSightings(before: Int64, seriesFirstBytes: ClosedRange<UInt8>) async throws -> Int {
        try await base.purgeDistinctSightings(before: before, seriesFirstBytes: seriesFirstBytes)
    }
    public func claimRuleAction(_ claim: RuleActionClaim) async throws -> Bool {
        if let error = ruleActionFault.withLock({ $0 }) { throw error }
        return try await base.claimRuleAction(claim)
    }
    public func finishRuleAction(_ claim: RuleActionClaim, outcome: RuleActionOutcome, detail: String) async throws {
        try await base.finishRuleAction(claim, outcome: outcome, detail: detail)
    }
    public func ruleActionRuns(appId: String?, limit: Int) async throws -> [RuleActionRunRecord] { try await base.ruleActionRuns(appId: appId, limit: limit) }
    public func purgeRuleActionRuns(heldUntilBefore instant: Date) async throws -> Int { try await base.purgeRuleActionRuns(heldUntilBefore: instant) }
    public func openReviewItems(_ openings: [ReviewOpening], now: Date) async throws {
        if let error = reviewOpeningFault.withLock({ $0 }) { throw error }
        try await base.openReviewItems(openings, now: now)
    }
    public func reviewItems(appId: String, filter: ReviewItemFilter, cursor: Int64?, limit: Int, now: Date) async throws -> [ReviewItemRecord] {
        try await base.reviewItems(appId: appId, filter: filter, cursor: cursor, limit: limit, now: now)
    }
    public func reviewItem(appId: String, id: Int64) async throws -> ReviewItemRecord? { try await base.reviewItem(appId: appId, id: id) }
    public func changeReviewItem(_ change: ReviewItemChange) async throws -> ReviewItemChangeOutcome { try await base.changeReviewItem(change) }
    public func recordReviewFollowUps(appId: String, id: Int64, followUps: String) async throws {
        try await base.recordReviewFollowUps(appId: appId, id: id, followUps: followUps)
    }
    public func purgeReviewItems(closedBefore instant: Date) async throws -> Int { try await base.purgeReviewItems(closedBefore: instant) }
    public func activeKeys(appId: String, after: Data?, limit: Int) async throws -> [ActiveKey] {
        try await base.activeKeys(appId: appId, after: after, limit: limit)
    }
    public func markDeviceCheckBit1Pending(
        scope: DeviceCheckScope, environment: AppAttestEnvironment, subject: DeviceCheckSubject, ruleId: String, at: Date
    ) async throws {
        try await base.markDeviceCheckBit1Pending(scope: scope, environment: environment, subject: subject, ruleId: ruleId, at: at)
    }
    public func deviceCheckBit1Pending(scope: DeviceCheckScope, environment: AppAttestEnvironment, subject: DeviceCheckSubject) async throws -> Date? {
        try await base.deviceCheckBit1Pending(scope: scope, environment: environment, subject: subject)
    }
    public func clearDeviceCheckBit1Pending(scope: DeviceCheckScope, environment: AppAttestEnvironment, subject: DeviceCheckSubject) async throws {
        try await base.clearDeviceCheckBit1Pending(scope: scope, environment: environment, subject: subject)
    }
    public func enqueueWebhookEvents(_ drafts: [WebhookEventDraft]) async throws { try await base.enqueueWebhookEvents(drafts) }
    public func claimWebhookEvents(now: Date, leaseUntil: Date, token: String, limit: Int) async throws -> [WebhookEventRecord] {
        try await base.claimWebhookEvents(now: now, leaseUntil: leaseUntil, token: token, limit: limit)
    }
    public func finishWebhookAttempt(_ attempt: WebhookAttempt) async throws -> Bool { try await base.finishWebhookAttempt(attempt) }
    public func claimKeySweepDay(_ day: String, owner: String, at now: Date, staleBefore: Date) async throws -> KeySweepClaim {
        try await base.claimKeySweepDay(day, owner: owner, at: now, staleBefore: staleBefore)
    }
    public func releaseKeySweepDay(_ day: String, owner: String) async throws { try await base.releaseKeySweepDay(day, owner: owner) }
    public func renewKeySweepDay(_ day: String, owner: String, at now: Date) async throws -> Bool {
        try await base.renewKeySweepDay(day, owner: owner, at: now)
    }
    public func finishKeySweepDay(_ day: String, owner: String, at now: Date) async throws {
        try await base.finishKeySweepDay(day, owner: owner, at: now)
    }
    public func webhookEvents(filter: WebhookEventFilter, cursor: Int64?, limit: Int) async throws -> [WebhookEventRecord] {
        try await base.webhookEvents(filter: filter, cursor: cursor, limit: limit)
    }
    public func webhookEvent(id: Int64) async throws -> WebhookEventRecord? { try await base.webhookEvent(id: id) }
    public func webhookAttempts(eventRow: Int64) async throws -> [WebhookAttemptRecord] { try await base.webhookAttempts(eventRow: eventRow) }
    public func redeliverWebhookEvent(id: Int64, now: Date) async throws -> WebhookEventRecord? { try await base.redeliverWebhookEvent(id: id, now: now) }
    public func webhookBacklog() async throws -> [WebhookBacklog] { try await base.webhookBacklog() }
    public func purgeWebhookEvents(finishedBefore instant: Date) async throws -> Int { try await base.purgeWebhookEvents(finishedBefore: instant) }
}
