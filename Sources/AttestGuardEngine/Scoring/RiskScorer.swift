import Foundation
import Logging
import Metrics
public import RiskRules
import AttestGuardStore
import AttestVocabulary

/// Turns a request into a verdict with the rule set in force: assembles the signals the rules read, evaluates,
/// and applies the app's mode. When the store cannot answer, the verdict is the app's `onStoreError` decision with
/// the reason `store_unavailable` (verification itself fails closed elsewhere).
public struct RiskScorer: Sendable {
    /// A verdict with the evidence behind it.
    public struct Outcome: Sendable {
        public var verdict: RiskVerdict
        /// The rules' own evaluation (before the mode).
        public var evaluation: RuleEvaluation
        /// Every signal the rule set reads, with its value (`nil` when missing), in name order: the order the
        /// response and the decision log write them, taken from the rule set's layout instead of sorting per verdict.
        public var signalList: [SignalEntry]
        /// The shadow rule set's evaluation of the same request, when one is configured: logged, never enforced.
        public var shadow: RuleEvaluation? = nil
        /// The JSON keys of ``signalList``'s names, written once per rule set (`nil` for a verdict decided without
        /// the rules, whose list is empty).
        package var signalKeys: SignalKeys? = nil

        /// ``signalList`` by name.
        public var signals: [String: SignalValue?] {
            Dictionary(signalList.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        }
    }

    public let rules: RuleSetHolder
    /// A candidate evaluated beside the live set on every request and logged when it decides otherwise; never
    /// enforced (`rules.shadowDirectory`).
    public let shadow: RuleSetHolder?
    private let shadowLogger = Logger(label: "attestguard.rules.shadow")
    /// One disagreement line per minute for each app, endpoint and pair of decisions; the rest are counted in it.
    private let shadowLogSampler = LogSampler(interval: 60)
    private let failureLogger = Logger(label: "attestguard.scoring")
    let apps: AppCatalog
    let assembler: SignalAssembler
    let velocity: VelocityRecorder
    /// Where every verdict's subjects are recorded as seen together, for distinct counts.
    let distinct: DistinctRecorder
    /// Every verdict is queued here for the decision log.
    public let decisionLog: DecisionLogWriter
    /// The keys verdicts name, so that their receipts stay in the refresh schedule.
    public let keyUse: KeyUseRecorder
    /// Where the actions of fired rules go, to run behind the verdict.
    let actions: RuleActionQueue
    /// Where review verdicts of the apps' chosen actions go, to open review items behind the verdict.
    let reviews: ReviewQueueRecorder
    /// Where `deny` and `review` verdicts of the apps' chosen actions go, for the webhooks that take them.
    let webhooks: WebhookPublisher
    let clock: any EngineClock
    let metrics: EngineMetrics

    init(
        rules: RuleSetHolder, apps: AppCatalog, store: any RiskStore, deviceCheck: DeviceCheckService, velocity: VelocityRecorder,
        decisionLog: DecisionLogWriter, keyUse: KeyUseRecorder, clock: any EngineClock, metrics: EngineMetrics, shadow: RuleSetHolder? = nil,
        baselines: RiskBaselineBook = RiskBaselineBook(), factsCache: ScoringFactsCache = ScoringFactsCache(limits: .disabled),
        lists: ManagedListBook = ManagedListBook(), actions: RuleActionQueue = RuleActionQueue(), distinct: DistinctRecorder,
        reviews: ReviewQueueRecorder, webhooks: WebhookPublisher
    ) {
        self.webhooks = webhooks
        self.reviews = reviews
        self.distinct = distinct
        self.actions = actions
        self.metrics = metrics
        self.decisionLog = decisionLog
        self.keyUse = keyUse
        self.shadow = shadow
        self.rules = rules
        self.apps = apps
        self.assembler = SignalAssembler(
            store: store, deviceCheck: deviceCheck, velocity: VelocitySignals(recorder: velocity),
            distinct: DistinctSignals(recorder: distinct), baselines: baselines,
            factsCache: factsCache, lists: lists
        )
        self.velocity = velocity
        self.clock = clock
    }

    /// The verdict for `request` under `ruleSet` (the rule set in force when `nil`).
    public func score(_ request: ScoreRequest, under ruleSet: RuleSet? = nil) async throws -> Outcome {
        let app = try apps.policy(for: request.appId)
        let started = ContinuousClock.now
        let ruleSet = ruleSet ?? rules.ruleSet
        let now = clock.now()
        let subjects = velocity.keying.hash(request.velocitySubjects)
        if request.endpoint == .score {
            velocity.record(.scoreRequests, appId: app.appId, hashed: subjects, at: now)
        }
        let values: SignalValues
        do {
            values = try await assembler.assemble(request, subjects: subjects, app: app, ruleSet: ruleSet, now: now)
        } catch let error as EngineError where error.kind != .unavailable {
            throw error
        } catch {
            let outcome = Self.fallback(.storeUnavailable, decision: app.onStoreError, ruleSetVersion: ruleSet.version,
                                        message: "the store did not answer; the app's onStoreError decides")
            record(outcome, request: request, app: app, subjects: subjects, at: now, since: started)
            return outcome
        }
        return await evaluate(values, request: request, app: app, ruleSet: ruleSet, subjects: subjects, now: now, since: started)
    }

    /// A verdict whose store read is planned before a commit, to be read in the same round trip
    /// (`RiskStore.commitAssertion(_:readingFacts:)`), then finished with ``scoreCommitted(_:facts:)``.
    struct PlannedVerdict: Sendable {
        /// The request; what only the commit tells (the counter jump) is set before the verdict.
        var request: ScoreRequest
        /// The facts to read with the commit.
        var query: ScoringFactsQuery { reading.query }
        var reading: SignalAssembler.Reading
        let ruleSet: RuleSet
        let app: AppPolicy
        let subjects: HashedSubjects
        let now: Date
        let started: ContinuousClock.Instant

        /// Counts an event recorded after the facts were read (the accepted assertion's own).
        mutating func countRecorded(_ event: VelocityEvent) {
            reading.countRecorded(event)
        }
    }

    /// Plans the verdict of `request` under `ruleSet` (the rule set in force when `nil`) for `app`, the policy of the
    /// request's app as the caller found it (looked up when `nil`).
    func plan(_ request: ScoreRequest, under ruleSet: RuleSet? = nil, app: AppPolicy? = nil) throws -> PlannedVerdict {
        let app = try app ?? apps.policy(for: request.appId)
        let ruleSet = ruleSet ?? rules.ruleSet
        let now = clock.now()
        let subjects = velocity.keying.hash(request.velocitySubjects)
        let reading = try assembler.plan(request, subjects: subjects, app: app, ruleSet: ruleSet, now: now)
        return PlannedVerdict(request: request, reading: reading, ruleSet: ruleSet, app: app, subjects: subjects, now: now, started: .now)
    }

    /// The verdict of a planned request whose effect is committed, from the facts read with the commit (nil when
    /// the plan read nothing).
    func scoreCommitted(_ planned: PlannedVerdict, facts: ScoringFacts?) async -> Outcome {
        let values = assembler.complete(planned.reading, facts: facts, request: planned.request, now: planned.now)
        return await evaluate(
            values, request: planned.request, app: planned.app, ruleSet: planned.ruleSet, subjects: planned.subjects, now: planned.now, since: planned.started
        )
    }

    /// Evaluates the live (and shadow) rule set over `values` and records the verdict.
    private func evaluate(
        _ values: SignalValues, request: ScoreRequest, app: AppPolicy, ruleSet: RuleSet, subjects: HashedSubjects, now: Date,
        since started: ContinuousClock.Instant
    ) async -> Outcome {
        let evaluation = ruleSet.evaluate(values)
        rules.hits.record(evaluation, endpoint: request.endpoint)
        let signalList = values.namedValues
        var outcome = Outcome(verdict: Self.verdict(evaluation, app: app), evaluation: evaluation, signalList: signalList)
        outcome.signalKeys = assembler.plans.plan(for: ruleSet).signalKeys
        actions.submit(evaluation, request: request, subjects: subjects, mode: app.mode, now: now)
        if let shadow {
            outcome.shadow = await evaluateShadow(shadow.ruleSet, request: request, subjects: subjects, app: app, live: evaluation, now: now)
        }
        record(outcome, request: request, app: app, subjects: subjects, at: now, since: started)
        return outcome
    }

    /// The verdict for a request whose effect is already committed (a registered key, an accepted assertion), which
    /// must be answered with a verdict whatever happens: a store failure gives the app's `onStoreError` decision (as
    /// ``score(_:under:)`` does), any other failure `review` with the reason `scoring_failed`.
    public func scoreCommitted(_ request: ScoreRequest, under ruleSet: RuleSet? = nil) async -> Outcome {
        do {
            return try await score(request, under: ruleSet)
        } catch {
            let ruleSet = ruleSet ?? rules.ruleSet
            failureLogger.warning("scoring failed after the commit; answering review", metadata: [
                "app": .string(request.appId), "endpoint": .string(request.endpoint.rawValue), "error": .string("\(error)"),
            ])
            let outcome = Self.fallback(.scoringFailed, decision: .review, ruleSetVersion: ruleSet.version,
                                        message: "the verdict could not be computed; the request is committed")
            record(
                outcome, request: request, app: try? apps.policy(for: request.appId), subjects: velocity.keying.hash(request.velocitySubjects),
                at: clock.now(), since: .now
            )
            return outcome
        }
    }

    /// The shadow set's evaluation: its own signals (it may read others than the live set), a count per pair of
    /// decisions in `attestguard_shadow_verdicts_total{live,shadow}`, and a log line when they differ: sampled, one a
    /// minute per app, endpoint and pair of decisions, with `held_back` saying how many were not logged before it.
    private func evaluateShadow(
        _ ruleSet: RuleSet, request: ScoreRequest, subjects: HashedSubjects, app: AppPolicy, live: RuleEvaluation, now: Date
    ) async -> RuleEvaluation? {
        guard let values = try? await assembler.assemble(request, subjects: subjects, app: app, ruleSet: ruleSet, now: now) else { return nil }
        let evaluation = ruleSet.evaluate(values)
        shadow?.hits.record(evaluation, endpoint: request.endpoint)
        actions.recordShadow(evaluation)
        Counter(label: MetricFamily.shadowVerdicts.name, dimensions: [("live", live.decision.rawValue), ("shadow", evaluation.decision.rawValue)]).increment()
        if evaluation.decision != live.decision,
            let heldBack = shadowLogSampler.admit("\(app.appId) \(request.endpoint) \(live.decision) \(evaluation.decision)", now: now)
        {
            shadowLogger.info("shadow rules decide otherwise", metadata: [
                "app": .string(app.appId), "endpoint": .string(request.endpoint.rawValue), "held_back": .stringConvertible(heldBack),
                "live": .string("\(live.decision.rawValue) \(live.ruleSetVersion) [\(live.fired.map(\.id).joined(separator: ","))]"),
                "shadow": .string("\(evaluation.decision.rawValue) \(evaluation.ruleSetVersion) [\(evaluation.fired.map(\.id).joined(separator: ","))]"),
            ])
        }
        return evaluation
    }

    /// Metrics, and the decision log entry (queued; written off the request path). `app` is the request's app's policy
    /// the verdict was made under (`nil` when it could not be found).
    private func record(
        _ outcome: Outcome, request: ScoreRequest, app: AppPolicy?, subjects: HashedSubjects, at now: Date, since started: ContinuousClock.Instant
    ) {
        metrics.recordVerdict(
            endpoint: request.endpoint, decision: outcome.verdict.decision, ruleDecision: outcome.evaluation.decision,
            enforced: outcome.verdict.enforced, duration: ContinuousClock.now - started
        )
        apps.recordVerdict(appId: request.appId, attested: request.keyId != nil)
        distinct.record(appId: request.appId, hashed: subjects, at: now)
        if let keyId = request.keyId { keyUse.note(appId: request.appId, keyId: keyId.bytes, at: now) }
        if outcome.evaluation.decision != .allow, let app {
            if outcome.evaluation.decision == .review, let policy = app.review {
                reviews.note(outcome.evaluation, request: request, subjects: subjects, policy: policy, at: now)
            }
            if let chosen = app.verdictWebhooks, chosen.includes(request.action),
                let event = WebhookEvent.verdict(outcome.evaluation, request: request, subjects: subjects, enforced: outcome.verdict.enforced, at: now) {
                webhooks.note(event)
            }
        }
        decisionLog.append(DecisionLogEntry(
            appId: request.appId,
            decidedAt: now,
            endpoint: request.endpoint,
            keyId: request.keyId?.base64,
            userHash: subjects.user,
            ipHash: subjects.ip,
            deviceHash: subjects.device,
            decision: outcome.verdict.decision,
            ruleDecision: outcome.evaluation.decision,
            score: outcome.evaluation.score,
            ruleSetVersion: outcome.evaluation.ruleSetVersion,
            fired: outcome.evaluation.fired.map(\.id).joined(separator: ","),
            signals: DecisionSnapshot.json(outcome.signalList, keys: outcome.signalKeys),
            shadow: outcome.shadow.map { ShadowVerdict(decision: $0.decision, ruleSetVersion: $0.ruleSetVersion, fired: $0.fired.map(\.id).joined(separator: ",")) },
            requestId: request.requestId
        ))
    }

    static func verdict(_ evaluation: RuleEvaluation, app: AppPolicy) -> RiskVerdict {
        let decision = evaluation.decision
        let reasons = evaluation.fired.map { RiskVerdict.Reason(ruleId: $0.id, score: $0.score, message: $0.reason) }
        switch app.mode {
        case .enforce:
            return RiskVerdict(decision: decision, score: evaluation.score, reasons: reasons, ruleSetVersion: evaluation.ruleSetVersion)
        case .monitor:
            return RiskVerdict(decision: .allow, score: evaluation.score, reasons: reasons, ruleSetVersion: evaluation.ruleSetVersion,
                               enforced: false, ruleDecision: decision)
        }
    }

    /// A verdict decided without the rules: `reason` says why, `decision` is what the app's policy prescribes for it.
    private static func fallback(_ reason: FallbackReason, decision: Decision, ruleSetVersion: String, message: String) -> Outcome {
        let evaluation = RuleEvaluation(score: 0, decision: decision, decidedBy: reason.rawValue, fired: [], ruleSetVersion: ruleSetVersion)
        return Outcome(
            verdict: RiskVerdict(decision: decision, score: 0, reasons: [RiskVerdict.Reason(ruleId: reason.rawValue, score: 0, message: message)],
                                 ruleSetVersion: ruleSetVersion),
            evaluation: evaluation,
            signalList: []
        )
    }
}

/// One signal a rule set reads and its value for a request (`nil` when missing).
public typealias SignalEntry = (name: String, value: SignalValue?)
