public import AttestGuardStore
public import AttestVocabulary
public import Foundation
import Metrics
import Synchronization

/// The scoring facts that change about once a day, held in this process so that a verdict's store read carries only
/// what must be exact (the key's counter and status, the challenge, velocity sums): a key's receipt summary, its
/// risk-metric baseline and its superseded-key count, stored DeviceCheck bits, and users' last DeviceCheck
/// validation. The app's policy and risk-metric baselines are held elsewhere (``AppCatalog``, ``RiskBaselineBook``).
///
/// A fact is used for at most ``Limits/maxAge`` after the instant of the verdict that read it; the next verdict to
/// need it after that reads it again in its own store statement, so no request pays an extra round trip and a fact
/// another process wrote is seen within `maxAge` (the contract's staleness bound). A fact this process writes — a
/// refreshed receipt, DeviceCheck bits filed, a validation recorded, a key superseded — is dropped at once, and no
/// read that began before the write can put the old value back: every write advances its kind's generation, and a
/// read keeps what it found of a kind only if that kind's generation is still the one it began under. The write
/// sites tell the cache after the store call whatever its outcome (a call that timed out may still have committed).
/// A revocation drops every key's facts (a revoked key no longer counts among its siblings' superseded keys).
///
/// DeviceCheck bits are held per (scope, environment, subject), with "no bits found" held as such, because a verdict
/// asks for the first subject and scope that has bits: one answer says every pair before the winner has none.
/// Each kind holds at most ``Limits/maxEntries`` entries (``ExpiringTable``).
public final class ScoringFactsCache: Sendable {
    /// How long a fact is used after it was read, and how many entries each kind holds.
    public struct Limits: Sendable, Hashable {
        /// 0 holds nothing: every verdict reads every fact from the store.
        public var maxAge: Duration
        public var maxEntries: Int

        public init(maxAge: Duration = .seconds(60), maxEntries: Int = 100_000) {
            self.maxAge = maxAge
            self.maxEntries = maxEntries
        }

        /// Nothing held: every fact from the store, as before the cache.
        public static let disabled = Limits(maxAge: .zero, maxEntries: 0)

        var isEnabled: Bool { maxAge > .zero && maxEntries > 0 }
    }

    /// The facts the cache holds; ``label`` is how `attestguard_scoring_facts_cache_lookups_total{part}` names them.
    public enum Part: Int, Sendable, CaseIterable {
        case receipt
        case riskMetricBaseline
        case supersededKeys
        case deviceCheckBits
        case deviceCheckValidation

        public var label: String {
            switch self {
            case .receipt: "receipt"
            case .riskMetricBaseline: "risk_metric_baseline"
            case .supersededKeys: "superseded_keys"
            case .deviceCheckBits: "devicecheck_bits"
            case .deviceCheckValidation: "devicecheck_validation"
            }
        }
    }

    /// A value the cache answered; `nil` in its place means the store is asked.
    struct Held<Value: Sendable>: Sendable {
        var value: Value
    }

    /// Each kind's count of writes by this process: a read keeps a kind's facts only if its count did not move.
    struct Generations: Sendable, Hashable {
        var keys: UInt64 = 0
        var deviceCheck: UInt64 = 0
        var validations: UInt64 = 0
    }

    /// What the cache answered for one verdict (taken out of its store read), and the generations it answered under.
    struct HeldFacts: Sendable {
        var generation: Generations
        var receipt: Held<ReceiptSummary?>?
        var metricBaseline: Held<Int?>?
        var supersededKeys: Held<Int?>?
        var deviceCheck: Held<DeviceCheckRecord?>?
        var deviceCheckValidation: Held<DeviceCheckValidationRecord?>?

        /// `facts` from the store with the held facts put in: a key's facts only when the key was found.
        func merged(into facts: ScoringFacts) -> ScoringFacts {
            var facts = facts
            if facts.key != nil {
                if let receipt { facts.receipt = receipt.value }
                if let metricBaseline { facts.metricBaseline = metricBaseline.value }
                if let supersededKeys { facts.supersededKeys = supersededKeys.value }
            }
            if let deviceCheck { facts.deviceCheck = deviceCheck.value }
            if let deviceCheckValidation { facts.deviceCheckValidation = deviceCheckValidation.value }
            return facts
        }
    }

    private struct KeyID: Hashable, Sendable {
        var appId: String
        var keyId: Data
    }

    /// A key's held facts, each with its own expiry: a verdict may read only some of them.
    private struct KeyFacts: Sendable {
        /// Fixed at attestation: the environment its DeviceCheck bits are read in.
        var environment: AppAttestEnvironment
        var receipt: Stamped<ReceiptSummary?>?
        var metricBaseline: Stamped<Int?>?
        var supersededKeys: Stamped<Int?>?

        var expiresAt: Date {
            [receipt?.expiresAt, metricBaseline?.expiresAt, supersededKeys?.expiresAt].compactMap { $0 }.max() ?? .distantPast
        }
    }

    private struct Stamped<Value: Sendable>: Sendable {
        var value: Value
        var expiresAt: Date

        func held(at now: Date) -> Held<Value>? { expiresAt > now ? Held(value: value) : nil }
    }

    private struct DeviceCheckPair: Hashable, Sendable {
        var scope: DeviceCheckScope
        var environment: AppAttestEnvironment
        var subject: DeviceCheckSubject
    }

    private struct UserID: Hashable, Sendable {
        var appId: String
        var userId: String
    }

    private struct State: Sendable {
        var generation = Generations()
        var keys: ExpiringTable<KeyID, KeyFacts>
        /// `nil`: Apple has no bits for the pair stored (none filed, or filed as not found).
        var deviceCheck: ExpiringTable<DeviceCheckPair, DeviceCheckRecord?>
        var validations: ExpiringTable<UserID, DeviceCheckValidationRecord?>
    }

    public let limits: Limits
    private let state: Mutex<State>
    /// By ``Part``'s raw value: a lookup's count is an array index, not a dictionary's hash.
    private let lookups: [(hit: Counter, miss: Counter)]

    public init(limits: Limits) {
        self.limits = limits
        let capacity = limits.isEnabled ? limits.maxEntries : 0
        self.state = Mutex(State(
            keys: ExpiringTable(capacity: capacity), deviceCheck: ExpiringTable(capacity: capacity), validations: ExpiringTable(capacity: capacity)
        ))
        self.lookups = Part.allCases.map { part in
            func counter(_ result: String) -> Counter {
                let counter = Counter(label: MetricFamily.scoringFactsCacheLookups.name, dimensions: [("part", part.label), ("result", result)])
                counter.increment(by: 0)
                return counter
            }
            return (counter("hit"), counter("miss"))
        }
    }

    // MARK: Verdicts

    /// Takes out of `query` the facts held for it at `now` and answers them; what is not held stays in the query.
    /// A key's DeviceCheck bits are looked up only when the key's entry, which holds its environment, is held (an
    /// earlier verdict read the key's daily facts or its bits).
    func take(from query: inout ScoringFactsQuery, at now: Date) -> HeldFacts {
        guard limits.isEnabled else { return HeldFacts(generation: Generations()) }
        return state.withLock { state in
            var held = HeldFacts(generation: state.generation)
            var environment = query.deviceCheck?.defaultEnvironment
            if let keyId = query.keyId {
                let key = state.keys.value(for: KeyID(appId: query.appId, keyId: keyId), at: now)
                environment = key?.environment
                if query.receipt {
                    held.receipt = count(.receipt, key?.receipt?.held(at: now))
                    if held.receipt != nil { query.receipt = false }
                }
                if query.metricBaselineAt != nil {
                    held.metricBaseline = count(.riskMetricBaseline, key?.metricBaseline?.held(at: now))
                    if held.metricBaseline != nil { query.metricBaselineAt = nil }
                }
                if query.supersededKeys {
                    held.supersededKeys = count(.supersededKeys, key?.supersededKeys?.held(at: now))
                    if held.supersededKeys != nil { query.supersededKeys = false }
                }
            }
            if let asked = query.deviceCheck {
                held.deviceCheck = count(.deviceCheckBits, environment.flatMap { Self.deviceCheck(asked, in: $0, from: state, at: now) })
                if held.deviceCheck != nil { query.deviceCheck = nil }
            }
            if let userId = query.deviceCheckValidationUserId {
                let validation = state.validations.value(for: UserID(appId: query.appId, userId: userId), at: now)
                held.deviceCheckValidation = count(.deviceCheckValidation, validation.map(Held.init))
                if held.deviceCheckValidation != nil { query.deviceCheckValidationUserId = nil }
            }
            return held
        }
    }

    /// Keeps what the store answered to `query` (what the cache did not hold), read for a verdict at `now`: each kind
    /// unless this process wrote a fact of that kind since `held` was taken.
    func keep(_ facts: ScoringFacts, asked query: ScoringFactsQuery, held: HeldFacts, at now: Date) {
        // A key's entry also holds its environment, which its DeviceCheck pairs are looked up in.
        let readKeyFacts = query.receipt || query.metricBaselineAt != nil || query.supersededKeys || query.deviceCheck != nil
        guard limits.isEnabled, readKeyFacts || query.deviceCheckValidationUserId != nil else { return }
        let expiresAt = now.addingTimeInterval(limits.maxAge.timeInterval)
        state.withLock { state in
            if readKeyFacts, state.generation.keys == held.generation.keys, let key = facts.key, let keyId = query.keyId {
                let id = KeyID(appId: query.appId, keyId: keyId)
                var entry = state.keys.value(for: id, at: now) ?? KeyFacts(environment: key.environment)
                if query.receipt { entry.receipt = Stamped(value: facts.receipt, expiresAt: expiresAt) }
                if query.metricBaselineAt != nil { entry.metricBaseline = Stamped(value: facts.metricBaseline, expiresAt: expiresAt) }
                if query.supersededKeys { entry.supersededKeys = Stamped(value: facts.supersededKeys, expiresAt: expiresAt) }
                state.keys.insert(entry, for: id, expiresAt: max(entry.expiresAt, expiresAt), now: now)
            }
            if let asked = query.deviceCheck, state.generation.deviceCheck == held.generation.deviceCheck {
                // The store's environment: the key's when the key was read and found, else the default.
                let environment = facts.key?.environment ?? asked.defaultEnvironment
                pairs: for subject in asked.subjects {
                    for scope in asked.scopes {
                        let pair = DeviceCheckPair(scope: scope, environment: environment, subject: subject)
                        if let found = facts.deviceCheck, found.scope == scope, found.subject == subject {
                            state.deviceCheck.insert(found, for: pair, expiresAt: expiresAt, now: now)
                            break pairs
                        }
                        state.deviceCheck.insert(nil, for: pair, expiresAt: expiresAt, now: now)
                    }
                }
            }
            if let userId = query.deviceCheckValidationUserId, state.generation.validations == held.generation.validations {
                state.validations.insert(facts.deviceCheckValidation, for: UserID(appId: query.appId, userId: userId), expiresAt: expiresAt, now: now)
            }
        }
    }

    /// The answer to `asked` in `environment` from the held pairs, in the store's order (subject, then scope): the
    /// first pair with bits, or none when every pair is held as having none; nil when a pair before the answer is
    /// not held.
    private static func deviceCheck(
        _ asked: DeviceCheckQuery, in environment: AppAttestEnvironment, from state: State, at now: Date
    ) -> Held<DeviceCheckRecord?>? {
        for subject in asked.subjects {
            for scope in asked.scopes {
                guard let pair = state.deviceCheck.value(for: DeviceCheckPair(scope: scope, environment: environment, subject: subject), at: now) else {
                    return nil
                }
                if let record = pair { return Held(value: record) }
            }
        }
        return Held(value: nil)
    }

    private func count<Value>(_ part: Part, _ held: Held<Value>?) -> Held<Value>? {
        let counters = lookups[part.rawValue]
        (held == nil ? counters.miss : counters.hit).increment()
        return held
    }

    // MARK: Writes by this process

    /// A key's receipt, risk-metric history or status changed: its facts are read again.
    public func keyChanged(appId: String, keyId: Data) {
        guard limits.isEnabled else { return }
        state.withLock { state in
            state.generation.keys &+= 1
            state.keys.remove(KeyID(appId: appId, keyId: keyId))
        }
    }

    /// A key was revoked: its siblings' superseded-key counts may have changed, and the cache does not know them, so
    /// every key's facts are read again (revocations are rare).
    public func keyRevoked() {
        guard limits.isEnabled else { return }
        state.withLock { state in
            state.generation.keys &+= 1
            state.keys.removeAll()
        }
    }

    /// Bits were filed for `subject` in `scope` and `environment`.
    public func deviceCheckBitsChanged(scope: DeviceCheckScope, environment: AppAttestEnvironment, subject: DeviceCheckSubject) {
        guard limits.isEnabled else { return }
        state.withLock { state in
            state.generation.deviceCheck &+= 1
            state.deviceCheck.remove(DeviceCheckPair(scope: scope, environment: environment, subject: subject))
        }
    }

    /// Stored bits were deleted (the purge of legacy team rows): every pair is read again.
    public func deviceCheckBitsPurged() {
        guard limits.isEnabled else { return }
        state.withLock { state in
            state.generation.deviceCheck &+= 1
            state.deviceCheck.removeAll()
        }
    }

    /// A user's DeviceCheck validation was recorded.
    public func deviceCheckValidationChanged(appId: String, userId: String) {
        guard limits.isEnabled else { return }
        state.withLock { state in
            state.generation.validations &+= 1
            state.validations.remove(UserID(appId: appId, userId: userId))
        }
    }

    /// How many entries each kind holds now (for tests and diagnostics).
    var entryCounts: (keys: Int, deviceCheck: Int, validations: Int) {
        state.withLock { ($0.keys.count, $0.deviceCheck.count, $0.validations.count) }
    }
}
