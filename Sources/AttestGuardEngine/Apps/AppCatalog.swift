public import AttestGuardStore
public import AttestVocabulary
import Synchronization

/// The configured apps, by app id, each as its configuration file sets it with the run-time overrides stored in the
/// database applied (``AppPolicyOverride``: mode and attestation-required percentage; the gateway reads the route
/// protections). Copies share one state: every service of a process sees an override from the moment
/// ``apply(_:)`` takes it, and every process takes the stored ones once per `apps.policyReloadSeconds`.
public struct AppCatalog: Sendable {
    private final class State: Sendable {
        let configured: [String: AppPolicy]
        let metrics: AppPolicyMetrics
        let live: Mutex<(effective: [String: AppPolicy], overrides: [String: AppPolicyOverride])>
        /// Each ramping app's stored ramp, as this process last took it (locked inside `live` when both are).
        let ramps = Mutex<[String: AttestationRampRecord]>([:])
        let rampMetrics: AttestationRampMetrics

        init(_ configured: [String: AppPolicy]) {
            self.configured = configured
            self.rampMetrics = AttestationRampMetrics(apps: configured.values.filter { $0.attestationRamp != nil }.map(\.appId).sorted())
            self.metrics = AppPolicyMetrics(apps: configured.values.sorted { $0.appId < $1.appId })
            self.live = Mutex((configured, [:]))
        }
    }

    private let state: State

    public init(_ apps: [AppPolicy]) {
        state = State(Dictionary(apps.map { ($0.appId, $0) }, uniquingKeysWith: { first, _ in first }))
    }

    /// Every app as it is in force, by app id.
    public var all: [AppPolicy] { state.live.withLock { $0.effective.values.sorted { $0.appId < $1.appId } } }

    /// The longest app id, in bytes (``AppIdGrammar/maximumLength``).
    public static let maximumAppIdLength = AppIdGrammar.maximumLength

    /// Whether `appId` has the grammar of `TEAMID.bundle.id` (``AppIdGrammar``). Checked before any lookup, so that
    /// only ASCII reaches a comparison (where canonical equivalence and bytes agree).
    public static func isWellFormed(appId: String) -> Bool {
        AppIdGrammar.isWellFormed(appId)
    }

    /// The app as it is in force; `invalid_field` when `appId` is not well formed, `app_not_found` when no such app
    /// is configured.
    public func policy(for appId: String) throws(EngineError) -> AppPolicy {
        guard Self.isWellFormed(appId: appId) else {
            throw EngineError.invalid(.invalidField, "appId must be TEAMID.bundle.id in ASCII, at most \(Self.maximumAppIdLength) bytes")
        }
        guard let app = state.live.withLock({ $0.effective[appId] }) else {
            throw EngineError(.notFound, code: .appNotFound, "no app \(appId) is configured")
        }
        return app
    }

    /// The app as its configuration file sets it, before any override.
    public func configuredPolicy(for appId: String) -> AppPolicy? {
        state.configured[appId]
    }

    /// The app's stored override as this process last took it.
    public func override(for appId: String) -> AppPolicyOverride? {
        state.live.withLock { $0.overrides[appId] }
    }

    /// Puts `overrides` (every app's, as stored) in force: an app without one gets its configured policy back. A
    /// stored value this build cannot read (a mode it does not know) keeps the configured value. Returns the apps whose
    /// mode or attestation-required percentage changed, or whose override changed, for the caller to log.
    @discardableResult
    public func apply(_ overrides: [AppPolicyOverride]) -> [AppPolicyChange] {
        let byApp = Dictionary(overrides.filter { state.configured[$0.appId] != nil }.map { ($0.appId, $0) }, uniquingKeysWith: { _, last in last })
        let changes = state.live.withLock { live in
            var changes: [AppPolicyChange] = []
            var effective = state.configured
            let ramps = state.ramps.withLock { $0 }
            for (appId, configured) in state.configured {
                let after = Self.applying(byApp[appId], to: Self.ramped(configured, ramps[appId]))
                effective[appId] = after
                let before = live.effective[appId] ?? configured
                if before != after || live.overrides[appId] != byApp[appId] {
                    changes.append(AppPolicyChange(appId: appId, before: before, after: after, override: byApp[appId], previousOverride: live.overrides[appId]))
                }
            }
            live = (effective, byApp)
            return changes
        }
        for change in changes { state.metrics.publish(change.after) }
        return changes.sorted { $0.appId < $1.appId }
    }

    /// The app's stored ramp as this process last took it.
    public func ramp(for appId: String) -> AttestationRampRecord? {
        state.ramps.withLock { $0[appId] }
    }

    /// Puts the stored ramps in force beside the stored overrides in force (a percentage an override sets pins the
    /// app whatever its ramp); returns what changed, as ``apply(_:)`` does.
    @discardableResult
    public func applyRamps(_ ramps: [AttestationRampRecord]) -> [AppPolicyChange] {
        takeRamps(ramps)
        return apply(Array(state.live.withLock { $0.overrides.values }))
    }

    /// Keeps the stored ramps for the next ``apply(_:)``, which puts them in force.
    public func takeRamps(_ ramps: [AttestationRampRecord]) {
        state.ramps.withLock { $0 = Dictionary(ramps.map { ($0.appId, $0) }, uniquingKeysWith: { _, last in last }) }
        state.rampMetrics.publish(ramps)
    }

    /// The ramp's step and outcome counters and its paused gauge.
    var rampMetrics: AttestationRampMetrics { state.rampMetrics }

    /// `configured` with its ramp's percentage: the stored one, or the ramp's start before anything is stored.
    public static func ramped(_ configured: AppPolicy, _ record: AttestationRampRecord?) -> AppPolicy {
        guard let ramp = configured.attestationRamp else { return configured }
        var app = configured
        app.attestationRequiredPercent = min(max(record?.percent ?? ramp.startPercent, 0), 100)
        return app
    }

    /// Counts a verdict of the app by whether its request named an attested key (the attestation rollout's ramp).
    public func recordVerdict(appId: String, attested: Bool) {
        state.metrics.recordVerdict(appId: appId, attested: attested)
    }

    /// `configured` with the values of `override` this build can read.
    public static func applying(_ override: AppPolicyOverride?, to configured: AppPolicy) -> AppPolicy {
        guard let override else { return configured }
        var app = configured
        if let mode = override.mode.flatMap(AppPolicy.Mode.init(rawValue:)) { app.mode = mode }
        if let percent = override.attestationRequiredPercent { app.attestationRequiredPercent = min(max(percent, 0), 100) }
        if let words = override.allowedCategories { app.build.allowedCategories = categories(words) }
        if let version = override.minimumBundleVersion.flatMap(DottedVersion.init) { app.build.minimumBundleVersion = version }
        if let strict = override.requiresAuthenticatorExtensions { app.build.requiresExtensions = strict }
        return app
    }

    /// The build policy's categories as the stored words (`production` to `["app_store"]`).
    public static func words(of categories: [AppAttestEnvironment: Set<ValidationCategory>]) -> [String: [String]] {
        Dictionary(uniqueKeysWithValues: categories.map { ($0.key.rawValue, $0.value.map(\.name).sorted()) })
    }

    /// The stored words read back; an environment or name this build cannot read is left out (a list left empty
    /// allows no category, as stored: the change said to restrict that environment).
    static func categories(_ words: [String: [String]]) -> [AppAttestEnvironment: Set<ValidationCategory>] {
        var categories: [AppAttestEnvironment: Set<ValidationCategory>] = [:]
        for (environment, names) in words {
            guard let environment = AppAttestEnvironment(rawValue: environment) else { continue }
            categories[environment] = Set(names.compactMap(ValidationCategory.init(name:)))
        }
        return categories
    }
}

/// One app's policy before and after stored overrides were put in force.
public struct AppPolicyChange: Sendable, Equatable {
    public var appId: String
    public var before: AppPolicy
    public var after: AppPolicy
    /// The stored override now in force, and the one before it (nil: none).
    public var override: AppPolicyOverride?
    public var previousOverride: AppPolicyOverride?
}
