public import AttestGuardStore
public import Foundation
public import Logging

/// Takes each ramping app's step at its period boundaries. Several server processes share one store: each reads the
/// stored ramp and writes the next one only on the revision it read, so that exactly one process takes a period's
/// step and the others find it taken. An app whose percentage an operator pinned (a stored override of
/// `attestationRequiredPercent`) is left alone until the pin is cleared.
public struct AttestationRampController: Sendable {
    /// One step, hold, pause or completion this process took.
    public struct Step: Sendable, Hashable {
        public var appId: String
        public var action: AttestationRampAction
        public var from: Int
        public var to: Int
        public var outcome: AttestationPeriodOutcome
        public var period: Int64
    }

    let store: any RiskStore
    let apps: AppCatalog
    let clock: any EngineClock
    let logger: Logger
    /// Told of every pause this process takes (`ramp.paused`).
    let webhooks: WebhookPublisher?

    public init(store: any RiskStore, apps: AppCatalog, clock: any EngineClock, logger: Logger, webhooks: WebhookPublisher? = nil) {
        self.webhooks = webhooks
        self.store = store
        self.apps = apps
        self.clock = clock
        self.logger = logger
    }

    /// Evaluates every ramping app's last complete period that is not yet evaluated, then puts the stored ramps in
    /// force here. Returns the steps this process took (none when another process took them first).
    @discardableResult
    public func tick() async throws -> [Step] {
        try await run(evaluating: true)
    }

    /// Starts the ramps that have nothing stored (at their start percentage) and puts the stored ramps in force,
    /// evaluating nothing: what a process does when it starts.
    public func start() async throws {
        _ = try await run(evaluating: false)
    }

    private func run(evaluating: Bool) async throws -> [Step] {
        let now = clock.now()
        let stored = Dictionary(try await store.attestationRamps().map { ($0.appId, $0) }, uniquingKeysWith: { _, last in last })
        // The pins as stored (not as this process last took them), so that no process steps a ramp pinned elsewhere.
        let pinned = Set(try await store.appPolicyOverrides().filter { $0.attestationRequiredPercent != nil }.map(\.appId))
        var steps: [Step] = []
        for app in apps.all {
            guard let ramp = app.attestationRamp else { continue }
            let record = stored[app.appId]
            guard evaluating || record == nil else { continue }
            if let step = try await advance(app.appId, ramp: ramp, stored: record, pinned: pinned.contains(app.appId), now: now) {
                steps.append(step)
            }
        }
        apps.applyRamps(try await store.attestationRamps())
        return steps
    }

    /// The app's ramp at `now`: started (a row at the start percentage, the period before this one counted as
    /// evaluated) when nothing is stored, else the last complete period evaluated once.
    private func advance(_ appId: String, ramp: AttestationRamp, stored: AttestationRampRecord?, pinned: Bool, now: Date) async throws -> Step? {
        let current = ramp.periodStart(of: now)
        let last = current - ramp.period
        guard let stored else {
            let started = AttestationRampRecord(
                appId: appId, percent: ramp.startPercent, state: (ramp.startPercent >= 100 ? AttestationRampState.complete : .ramping).rawValue,
                evaluatedPeriod: last, updatedAt: now, updatedBy: Self.actor
            )
            if try await store.replaceAttestationRamp(started, expectedRevision: 0) {
                logger.info("attestation ramp started", metadata: ["app": .string(appId), "percent": .stringConvertible(ramp.startPercent)])
            }
            return nil
        }
        guard stored.evaluatedPeriod < last, !pinned else { return nil }
        let state = AttestationRampState(rawValue: stored.state) ?? .holding
        let outcome = AttestationPeriodOutcome(try await store.attestationOutcomeCounts(appId: appId, periodStart: last))
        let evaluated = ramp.evaluate(percent: stored.percent, state: state, outcome: outcome)
        var next = stored
        next.evaluatedPeriod = last
        next.periodAttempts = outcome.attempts
        next.periodSuccesses = outcome.successes
        next.periodRateLimited = outcome.rateLimited
        next.updatedAt = now
        next.updatedBy = Self.actor
        if let evaluated {
            next.percent = evaluated.percent
            next.state = evaluated.state.rawValue
            if evaluated.percent != stored.percent { next.lastStepAt = now }
        }
        next.revision = stored.revision + 1
        guard try await store.replaceAttestationRamp(next, expectedRevision: stored.revision) else { return nil }
        // The period is evaluated: who reported in it is no longer needed.
        do {
            try await store.purgeAttestationOutcomeReporters(appId: appId, before: current)
        } catch {
            logger.warning("attestation outcome reporters not purged", metadata: ["app": .string(appId), "error": .string(String(describing: error))])
        }
        guard let evaluated else { return nil }
        let step = Step(appId: appId, action: evaluated.action, from: stored.percent, to: evaluated.percent, outcome: outcome, period: last)
        record(step)
        if step.action == .pause { await webhooks?.publish(.rampPaused(step, at: now)) }
        return step
    }

    /// Logs the step at info and counts it.
    private func record(_ step: Step) {
        logger.info("attestation ramp \(step.action.rawValue)", metadata: [
            "app": .string(step.appId), "action": .string(step.action.rawValue),
            "from_percent": .stringConvertible(step.from), "to_percent": .stringConvertible(step.to),
            "attempts": .stringConvertible(step.outcome.attempts), "success_rate": .string(Self.format(step.outcome.successRate)),
            "rate_limited_share": .string(Self.format(step.outcome.rateLimitedShare)),
            "period_start": .stringConvertible(step.period),
        ])
        apps.rampMetrics.count(step.action, appId: step.appId)
    }

    /// Resumes a paused ramp (an operator's call; `by` is the API key's name): the state is `ramping` again and the
    /// next boundary evaluates the period then ended. Returns the ramp as stored, or nil when the app has no stored
    /// ramp; a ramp that is not paused is returned unchanged.
    public func resume(appId: String, by apiKey: String) async throws -> AttestationRampRecord? {
        for _ in 0..<8 {
            guard let stored = try await store.attestationRamps().first(where: { $0.appId == appId }) else { return nil }
            guard stored.state == AttestationRampState.paused.rawValue else { return stored }
            var next = stored
            next.state = AttestationRampState.ramping.rawValue
            next.revision = stored.revision + 1
            next.updatedAt = clock.now()
            next.updatedBy = apiKey
            if try await store.replaceAttestationRamp(next, expectedRevision: stored.revision) {
                logger.info("attestation ramp resumed", metadata: ["app": .string(appId), "api_key": .string(apiKey), "percent": .stringConvertible(next.percent)])
                apps.applyRamps(try await store.attestationRamps())
                return next
            }
        }
        return try await store.attestationRamps().first { $0.appId == appId }
    }

    /// When the next period of any ramping app begins after `date` (nil: no app ramps).
    public func nextBoundary(after date: Date) -> Date? {
        apps.all.compactMap(\.attestationRamp).map { ramp in
            Date(timeIntervalSince1970: TimeInterval(ramp.periodStart(of: date) + ramp.period))
        }.min()
    }

    /// The `updated_by` of the controller's writes.
    public static let actor = "ramp"

    static func format(_ share: Double) -> String { String(format: "%.4f", share) }
}
