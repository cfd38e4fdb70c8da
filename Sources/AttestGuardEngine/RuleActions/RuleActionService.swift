public import AttestGuardStore
import AttestVocabulary
public import Foundation
import Logging
import RiskRules

/// Runs the actions fired rules queued (``RuleActionQueue``), behind the requests: each first claims its target in
/// the store, so that it runs at most once per target and period across every process, then revokes the key, adds
/// the list entry or stores the label, and records how it ended in the store, in
/// `attestguard_rule_actions_total{action,outcome}` and in a log line.
///
/// At most once: an action claimed by a process that dies before it ran is not run again until its period ends;
/// one still queued (the write-behind service runs the queue every second) dies with the process. An action whose
/// claim the store does not answer goes back to the queue for the next run.
public struct RuleActionService: Sendable {
    public let queue: RuleActionQueue
    let store: any RiskStore
    let keys: KeyService
    let lists: ManagedListService
    let deviceCheck: DeviceCheckService
    static let logger = Logger(label: "attestguard.rules.actions")

    init(queue: RuleActionQueue, store: any RiskStore, keys: KeyService, lists: ManagedListService, deviceCheck: DeviceCheckService) {
        self.queue = queue
        self.deviceCheck = deviceCheck
        self.store = store
        self.keys = keys
        self.lists = lists
    }

    /// Runs every queued action, one after another.
    /// - Returns: How many ran (held their claim).
    /// - Throws: `store_unavailable` when a claim could not be made; that action and those after it are queued again.
    @discardableResult
    public func run() async throws -> Int {
        let pending = queue.takeAll()
        var ran = 0
        for (index, action) in pending.enumerated() {
            let claimed: Bool
            do {
                claimed = try await withStore { try await store.claimRuleAction(action.claim) }
            } catch {
                queue.putBack(Array(pending[index...]))
                throw error
            }
            guard claimed else {
                RuleActionQueue.count(action.action.name, .alreadyRun)
                continue
            }
            ran += 1
            let (outcome, detail) = await execute(action)
            RuleActionQueue.count(action.action.name, outcome)
            Self.log(action, outcome: outcome, detail: detail)
            // The run happened whatever this write does: a claim left `running` still holds its target until its end.
            try? await store.finishRuleAction(action.claim, outcome: outcome, detail: detail)
        }
        return ran
    }

    /// The last runs, newest first, of one app or of every app.
    public func runs(appId: String?, limit: Int) async throws -> [RuleActionRunRecord] {
        try await withStore { try await store.ruleActionRuns(appId: appId, limit: limit) }
    }

    /// Deletes runs whose hold ended more than a period ago.
    public func purge(now: Date) async throws -> Int {
        try await withStore { try await store.purgeRuleActionRuns(heldUntilBefore: now.addingTimeInterval(-RuleActionQueue.period)) }
    }

    private func execute(_ pending: RuleActionQueue.Pending) async -> (RuleActionOutcome, String) {
        await Self.outcome {
            switch pending.action.detail {
            case .setDeviceCheckBit1:
                return try await setDeviceCheckBit1(appId: pending.appId, subjects: pending.deviceCheckSubjects, by: pending.ruleId)
            case .revokeKey:
                return try await revokeKey(appId: pending.appId, keyId: pending.subject, by: "rule:\(pending.ruleId)")
            case .addToList(let list, let value, let lifetime):
                // An entry already on the list for at least as long (an analyst's longer block, a wider range) is
                // left as it is: adding would cut its expiry short.
                // Only for a single value: a block's first address inside a narrower entry is no sign the block is.
                let until = pending.queuedAt.timeIntervalSince1970 + lifetime
                if !value.contains("/"), lists.book.snapshot.lists[list]?.contains(value, at: until) == true {
                    return (.unchanged, "already on the list for at least as long")
                }
                let entry = ManagedListEntrySubmission(value: value, ttlSeconds: Int(lifetime), note: "rule \(pending.ruleId)", position: "the rule's value")
                _ = try await lists.change(list, .add([entry]), actor: "rule:\(pending.ruleId)")
                return (.done, "")
            case .label(let label, let source, let kind):
                let record = FraudLabelRecord(
                    appId: pending.appId, kind: kind, subject: pending.subject, source: source, label: label, labelledAt: pending.queuedAt
                )
                let written = try await withStore { try await store.storeLabels([record]) }
                return (written.first == .unchanged ? .unchanged : .done, "")
            }
        }
    }

    /// Revokes the key (standard base64 id) unless it is unknown or revoked already: how that ended, and why when
    /// nothing changed. A rule's `revoke_key` and a review's rejection both act through it.
    func revokeKey(appId: String, keyId: String, by actor: String) async throws -> (RuleActionOutcome, String) {
        let key = try KeyId(base64: keyId)
        guard let stored = try await withStore({ try await store.key(appId: appId, keyId: key.bytes) }) else {
            return (.unchanged, "no such key")
        }
        guard stored.status != .revoked else { return (.unchanged, "the key is already revoked") }
        _ = try await keys.revoke(appId: appId, keyId: key.bytes, by: actor)
        return (.done, "")
    }

    /// Sets DeviceCheck bit 1 under `subjects`, filed for `actor` (a rule id, `review:<item>`): how that ended.
    func setDeviceCheckBit1(appId: String, subjects: [DeviceCheckSubject], by actor: String) async throws -> (RuleActionOutcome, String) {
        try await deviceCheck.flagBit1(appId: appId, subjects: subjects, ruleId: actor) ? (.done, "") : (.unchanged, "bit 1 is already set")
    }

    /// What `deed` did, or `failed` with why it threw.
    static func outcome(_ deed: () async throws -> (RuleActionOutcome, String)) async -> (RuleActionOutcome, String) {
        do {
            return try await deed()
        } catch let error as EngineError {
            return (.failed, error.description)
        } catch {
            return (.failed, String(describing: error))
        }
    }

    private static func log(_ pending: RuleActionQueue.Pending, outcome: RuleActionOutcome, detail: String) {
        var metadata: Logger.Metadata = [
            "app": .string(pending.appId), "rule": .string(pending.ruleId), "action": .string(pending.action.description),
            "outcome": .string(outcome.rawValue),
        ]
        if !detail.isEmpty { metadata["detail"] = .string(detail) }
        if outcome == .failed {
            logger.warning("rule action failed; not tried again before its period ends", metadata: metadata)
        } else {
            logger.notice("rule action ran", metadata: metadata)
        }
    }

    /// Logs an action a rule asked for in an app in monitor mode, once per target and period in this process.
    static func logMonitored(_ pending: RuleActionQueue.Pending) {
        logger.info("rule action not run: the app is in monitor mode", metadata: [
            "app": .string(pending.appId), "rule": .string(pending.ruleId), "action": .string(pending.action.description),
        ])
    }
}
