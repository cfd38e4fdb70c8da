public import AttestGuardStore
import AttestVocabulary
public import Foundation
public import RiskRules

/// The analysts' reads: a key's risk-metric history with its receipt refreshes, and the decisions about a key, user
/// or device over a bounded range, a page at a time. Read-only; every read names one app.
public struct HistoryService: Sendable {
    /// Decisions or risk metrics per answer when the caller names no limit, and the most it may name.
    public static let defaultLimit = 50
    public static let maximumLimit = 500
    /// The range searched when the caller names no start: the day before the end.
    public static let defaultRange: TimeInterval = 86_400
    /// The longest range one search may cover (the log keeps 30 days by default).
    public static let maximumRange: TimeInterval = 31 * 86_400

    let store: any RiskStore
    let apps: AppCatalog
    let keying: VelocityKeying
    let clock: any EngineClock
    /// The rule sets whose reasons can be rendered again: the live set and the shadow, as they are now.
    let ruleSets: @Sendable () -> [RuleSet]

    /// - Parameters:
    ///   - keying: The keyed hash the decision log's user and device hashes were made with.
    ///   - ruleSets: The rule sets a fired rule's score and reason are looked up in, by version.
    public init(
        store: any RiskStore, apps: AppCatalog, keying: VelocityKeying, clock: any EngineClock, ruleSets: @escaping @Sendable () -> [RuleSet]
    ) {
        self.store = store
        self.apps = apps
        self.keying = keying
        self.clock = clock
        self.ruleSets = ruleSets
    }

    /// The key's current receipt and its newest risk metrics, at most `limit` (``defaultLimit`` when `nil`).
    /// - Throws: `app_not_found`, `key_not_found`, `invalid_field` for a limit out of range.
    public func keyHistory(appId: String, keyId: KeyId, limit: Int? = nil) async throws -> KeyHistory {
        _ = try apps.policy(for: appId)
        let limit = try Self.checkedLimit(limit)
        guard let key = try await withStore({ try await store.key(appId: appId, keyId: keyId.bytes) }) else {
            throw EngineError(.notFound, code: .keyNotFound, "no key with this id is registered for \(appId)")
        }
        let receipt = try await withStore { try await store.receipt(appId: appId, keyId: keyId.bytes) }
        let metrics = try await withStore { try await store.recentRiskMetrics(appId: appId, keyId: keyId.bytes, limit: limit) }
        return KeyHistory(key: AttestedKey(key), receipt: receipt.map(KeyReceipt.init), riskMetrics: metrics)
    }

    /// One page of the decisions `query` names, newest first.
    /// - Throws: `app_not_found`; `invalid_field` for a range that is empty, reversed or longer than
    ///   ``maximumRange``, or a limit out of range.
    public func decisions(_ query: DecisionQuery) async throws -> DecisionPage {
        _ = try apps.policy(for: query.appId)
        let limit = try Self.checkedLimit(query.limit)
        let to = query.to ?? clock.now()
        let from = query.from ?? to.addingTimeInterval(-Self.defaultRange)
        guard from < to else {
            throw EngineError.invalid(.invalidField, "from must be before to")
        }
        guard to.timeIntervalSince(from) <= Self.maximumRange else {
            throw EngineError.invalid(.invalidField, "from and to may be at most \(Int(Self.maximumRange / 86_400)) days apart")
        }
        let search = DecisionSearch(
            appId: query.appId, subject: subject(query.subject), from: from, to: to, after: query.cursor?.position, limit: limit + 1
        )
        let entries = try await withStore { try await store.searchDecisions(search) }
        let page = entries.prefix(limit)
        let reasons = FiredRuleReasons(ruleSets: ruleSets())
        return DecisionPage(
            appId: query.appId, from: from, to: to, decisions: page.map(reasons.decision),
            next: entries.count > limit ? page.last.map { DecisionCursor(DecisionLogPosition($0)) } : nil
        )
    }

    /// The subject as the log keeps it: the key id as standard base64, users and devices as keyed hashes.
    private func subject(_ subject: DecisionQuery.Subject) -> DecisionSearch.Subject {
        switch subject {
        case .key(let keyId): .key(keyId.base64)
        case .user(let user): .userHash(keying.subject(.user, user.value))
        case .device(let device): .deviceHash(keying.subject(.device, device.value))
        }
    }

    private static func checkedLimit(_ limit: Int?) throws(EngineError) -> Int {
        let limit = limit ?? defaultLimit
        guard (1...maximumLimit).contains(limit) else {
            throw EngineError.invalid(.invalidField, "limit must be 1-\(maximumLimit)")
        }
        return limit
    }
}
