import AttestGuardStore
import AttestVocabulary
import Foundation
import Logging
public import RiskRules

/// The nightly sweep: a named rule set (`rules.sweepDirectory`) evaluated over every active key of every app, as a
/// `POST /v1/score` naming the key and the user and device it was registered with would be (its receipt's risk metric
/// fresh from the night's refresh, its DeviceCheck bits, the labels, velocity and distinct counts of its key, user and
/// device; no address, action, attributes or attest status), and the actions of the rules that fire queued as a verdict's are (``RuleActionQueue``: at most once per
/// target and period, monitored in monitor mode) and run between pages. Nothing is logged in the decision log and no
/// velocity or distinct count is recorded: the sweep reads, it is not traffic. A dry run counts the actions without
/// queueing any.
public struct KeySweep: Sendable {
    let store: any RiskStore
    let apps: AppCatalog
    let assembler: SignalAssembler
    let keying: VelocityKeying
    let actions: RuleActionService
    let clock: any EngineClock
    let logger = Logger(label: "attestguard.sweep")

    /// Keys read per store round trip, and run between two action runs.
    public static let pageSize = 500
    /// Keys scored at once.
    public static let concurrency = 8
    /// Flagged keys a report lists per app; the counts cover them all.
    public static let flaggedListed = 100

    init(store: any RiskStore, apps: AppCatalog, assembler: SignalAssembler, keying: VelocityKeying, actions: RuleActionService, clock: any EngineClock) {
        self.store = store
        self.apps = apps
        self.assembler = assembler
        self.keying = keying
        self.actions = actions
        self.clock = clock
    }

    /// Sweeps the apps `appIds` (every configured app when `nil`) with `ruleSet`. An app whose keys cannot be listed or
    /// whose actions cannot be claimed stops there (``KeySweepReport/App/error``; what was queued stays queued for the
    /// next run), and the sweep goes on with the next app.
    /// - Throws: `app_not_found` for an unknown app; `CancellationError` when the task is cancelled.
    /// - Parameters:
    ///   - pageSize: Keys read per store round trip (``pageSize`` but in tests).
    ///   - betweenPages: Called after each page (a running sweep's claim is renewed there); a ``KeySweepStopped`` it
    ///     throws stops the whole sweep.
    public func run(
        _ ruleSet: RuleSet, appIds: [String]? = nil, dryRun: Bool, pageSize: Int = KeySweep.pageSize,
        betweenPages: @Sendable () async throws -> Void = {}
    ) async throws -> KeySweepReport {
        let startedAt = clock.now()
        let policies = try (appIds ?? apps.all.map(\.appId)).map { try apps.policy(for: $0) }
        var reports: [KeySweepReport.App] = []
        for app in policies {
            var report = KeySweepReport.App(appId: app.appId)
            do {
                try await sweep(app, ruleSet: ruleSet, dryRun: dryRun, pageSize: max(1, pageSize), betweenPages: betweenPages, into: &report)
            } catch is CancellationError {
                throw CancellationError()
            } catch let stopped as KeySweepStopped {
                throw stopped
            } catch {
                report.error = String(describing: error)
                logger.warning("key sweep of an app stopped", metadata: ["app": .string(app.appId), "error": .string(report.error ?? "")])
            }
            reports.append(report)
        }
        let report = KeySweepReport(ruleSetVersion: ruleSet.version, dryRun: dryRun, startedAt: startedAt, finishedAt: clock.now(), apps: reports)
        for app in report.apps {
            logger.notice("key sweep finished", metadata: [
                "app": .string(app.appId), "keys": .stringConvertible(app.keys), "flagged": .stringConvertible(app.flagged),
                "failed": .stringConvertible(app.failed), "dry_run": .stringConvertible(dryRun), "rule_set": .string(ruleSet.version),
            ])
        }
        return report
    }

    private func sweep(
        _ app: AppPolicy, ruleSet: RuleSet, dryRun: Bool, pageSize: Int, betweenPages: @Sendable () async throws -> Void, into report: inout KeySweepReport.App
    ) async throws {
        var after: Data?
        while true {
            try Task.checkCancellation()
            let page = try await withStore { try await store.activeKeys(appId: app.appId, after: after, limit: pageSize) }
            guard let last = page.last else { break }
            after = last.keyId
            let now = clock.now()
            let outcomes = await withTaskGroup(of: (Int, Outcome).self) { group in
                var outcomes = [Outcome?](repeating: nil, count: page.count)
                var next = 0
                func start(_ index: Int) {
                    group.addTask { (index, await self.score(page[index], app: app, ruleSet: ruleSet, dryRun: dryRun, now: now)) }
                }
                while next < min(Self.concurrency, page.count) {
                    start(next)
                    next += 1
                }
                for await (index, outcome) in group {
                    outcomes[index] = outcome
                    if next < page.count {
                        start(next)
                        next += 1
                    }
                }
                return outcomes.compactMap { $0 }
            }
            try Task.checkCancellation()
            for outcome in outcomes { report.add(outcome) }
            // One line a page, not one a key: an outage fails them all.
            let failures = outcomes.compactMap { if case .failed(let error) = $0 { error } else { nil } }
            if let first = failures.first {
                logger.warning("key sweep could not score keys; they are swept the next time", metadata: [
                    "app": .string(app.appId), "keys": .stringConvertible(failures.count), "error": .string(first),
                ])
            }
            // Between pages, so that a night that flags many keys never fills the action queue.
            if !dryRun { try await actions.run() }
            try await betweenPages()
            if page.count < pageSize { break }
        }
    }

    /// What scoring one key gave.
    enum Outcome: Sendable {
        case scored(keyId: String, evaluation: RuleEvaluation)
        /// Why its facts could not be read.
        case failed(String)
    }

    private func score(_ key: ActiveKey, app: AppPolicy, ruleSet: RuleSet, dryRun: Bool, now: Date) async -> Outcome {
        do {
            var request = ScoreRequest(appId: app.appId, keyId: try KeyId(bytes: key.keyId))
            // The ids were checked when the key was registered; one that no longer passes is left out, not the key.
            request.userId = try? Identifier(key.userId, field: "userId")
            request.deviceId = key.deviceId.flatMap { try? Identifier($0, field: "deviceId") }
            let subjects = keying.hash(request.velocitySubjects)
            let values = try await assembler.assemble(request, subjects: subjects, app: app, ruleSet: ruleSet, now: now)
            let evaluation = ruleSet.evaluate(values)
            if !dryRun { actions.queue.submit(evaluation, request: request, subjects: subjects, mode: app.mode, now: now) }
            return .scored(keyId: request.keyId?.base64 ?? "", evaluation: evaluation)
        } catch {
            return .failed(String(describing: error))
        }
    }
}

extension KeySweepReport.App {
    /// Counts one key's outcome.
    mutating func add(_ outcome: KeySweep.Outcome) {
        guard case .scored(let keyId, let evaluation) = outcome else {
            failed += 1
            return
        }
        keys += 1
        for firing in evaluation.fired { rules[firing.id, default: 0] += 1 }
        let asked = evaluation.actions
        guard !asked.isEmpty || evaluation.decision != .allow else { return }
        flagged += 1
        for (_, action) in asked { actions[action.name.rawValue, default: 0] += 1 }
        if flaggedKeys.count < KeySweep.flaggedListed {
            flaggedKeys.append(KeySweepReport.FlaggedKey(
                keyId: keyId, decision: evaluation.decision.rawValue, score: evaluation.score, rules: evaluation.fired.map(\.id),
                actions: asked.map(\.action.description)
            ))
        }
    }
}

/// Why a sweep stopped before its end on purpose: its process no longer holds the day's claim.
public struct KeySweepStopped: Error, CustomStringConvertible {
    public var description: String
}
