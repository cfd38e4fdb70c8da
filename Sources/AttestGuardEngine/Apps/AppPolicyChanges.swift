public import AttestGuardStore
public import AttestVocabulary
public import Logging
import Metrics

/// An operator's changes to an app's policy at run time (`PUT`/`DELETE /v1/admin/apps/{appId}/policy`,
/// `POST .../policy/ramp/resume`): stored on the revision read (a compare-and-swap, retried when another process
/// wrote in between, unless the caller named the revision), in force in this process at once and in the others at
/// their next reload, logged at info with the API key's name and counted in
/// `attestguard_app_policy_changes_total{app,setting}`.
public struct AppPolicyChanges: Sendable {
    /// The settings a change counts by (`setting` label).
    public enum Setting: String, Sendable, CaseIterable {
        case mode
        case attestationRequiredPercent = "attestation_required_percent"
        case defaultProtection = "default_protection"
        case routes
        case allowedCategories = "allowed_categories"
        case minimumBundleVersion = "minimum_bundle_version"
        case requireAuthenticatorExtensions = "require_authenticator_extensions"
    }

    /// The values a change stores; `nil` keeps the configuration file's. Protections are the gateway policy's words
    /// (`require`, `score`, `open`), checked against the app's gateway policy files by the caller.
    public struct Values: Sendable, Hashable {
        public var mode: AppPolicy.Mode?
        public var attestationRequiredPercent: Int?
        public var defaultProtection: String?
        /// A gateway route's path pattern, as its policy file writes it, to its protection.
        public var routeProtections: [String: String]
        /// The build policy's categories by environment, replacing the file's whole map (an environment without a
        /// set allows any category).
        public var allowedCategories: [AppAttestEnvironment: Set<ValidationCategory>]?
        public var minimumBundleVersion: DottedVersion?
        public var requiresAuthenticatorExtensions: Bool?

        public init(
            mode: AppPolicy.Mode? = nil, attestationRequiredPercent: Int? = nil, defaultProtection: String? = nil, routeProtections: [String: String] = [:],
            allowedCategories: [AppAttestEnvironment: Set<ValidationCategory>]? = nil, minimumBundleVersion: DottedVersion? = nil,
            requiresAuthenticatorExtensions: Bool? = nil
        ) {
            self.mode = mode
            self.attestationRequiredPercent = attestationRequiredPercent
            self.defaultProtection = defaultProtection
            self.routeProtections = routeProtections
            self.allowedCategories = allowedCategories
            self.minimumBundleVersion = minimumBundleVersion
            self.requiresAuthenticatorExtensions = requiresAuthenticatorExtensions
        }
    }

    /// How many times a change is tried on a fresh revision before the caller is told to try again.
    static let attempts = 8

    let store: any RiskStore
    let apps: AppCatalog
    let clock: any EngineClock
    let overrides: AppPolicyOverrides
    let ramps: AttestationRampController
    /// Told of every change of the mode in force (`app.mode_changed`).
    let webhooks: WebhookPublisher?

    public init(store: any RiskStore, apps: AppCatalog, clock: any EngineClock, logger: Logger, webhooks: WebhookPublisher? = nil) {
        self.webhooks = webhooks
        self.store = store
        self.apps = apps
        self.clock = clock
        overrides = AppPolicyOverrides(store: store, catalog: apps, logger: logger)
        ramps = AttestationRampController(store: store, apps: apps, clock: clock, logger: logger)
    }

    /// Stores `values` as the app's override (`nil`: clears it, keeping the row and its revision), on the stored
    /// revision or on `expectedRevision` when given; puts it in force here, then logs and counts what changed.
    /// - Throws: `precondition_failed` when the stored revision is not `expectedRevision`, or when other processes
    ///   kept changing the policy through every attempt; `store_unavailable`.
    public func replace(appId: String, with values: Values?, expectedRevision: Int64?, by apiKey: String, logger: Logger) async throws {
        for _ in 0..<Self.attempts {
            let stored = try await withStore { try await store.appPolicyOverrides().first { $0.appId == appId } }
            let revision = stored?.revision ?? 0
            if let expectedRevision, expectedRevision != revision {
                throw EngineError(.preconditionFailed, code: .preconditionFailed, "the app's policy is at revision \(revision), not \(expectedRevision): read it again")
            }
            let next = AppPolicyOverride(
                appId: appId, mode: values?.mode?.rawValue, attestationRequiredPercent: values?.attestationRequiredPercent,
                defaultProtection: values?.defaultProtection, routeProtections: values?.routeProtections ?? [:],
                allowedCategories: values?.allowedCategories.map(AppCatalog.words(of:)),
                minimumBundleVersion: values?.minimumBundleVersion?.description,
                requiresAuthenticatorExtensions: values?.requiresAuthenticatorExtensions,
                revision: revision + 1, updatedAt: clock.now(), updatedBy: apiKey
            )
            guard try await withStore({ try await store.replaceAppPolicyOverride(next, expectedRevision: revision) }) else { continue }
            _ = try await withStore { try await overrides.refresh() }
            record(app: appId, from: stored, to: next.isEmpty ? nil : next, apiKey: apiKey, logger: logger)
            if let webhooks, let configured = apps.configuredPolicy(for: appId) {
                let old = stored?.mode.flatMap(AppPolicy.Mode.init(rawValue:)) ?? configured.mode
                let new = values?.mode ?? configured.mode
                if old != new { await webhooks.publish(.modeChanged(appId: appId, from: old, to: new, by: apiKey, at: next.updatedAt)) }
            }
            return
        }
        throw EngineError(.preconditionFailed, code: .preconditionFailed, "the app's policy kept changing while this change was stored: try again")
    }

    /// Sets the app's paused rollout ramp ramping again (see ``AttestationRampController/resume(appId:by:)``).
    /// - Throws: `ramp_not_configured` when the app has no ramp; `store_unavailable`.
    public func resumeRamp(of app: AppPolicy, by apiKey: String) async throws {
        guard app.attestationRamp != nil else {
            throw EngineError(.notFound, code: .rampNotConfigured, "app \(app.appId) has no attestation rollout ramp (apps.<app>.ramp)")
        }
        _ = try await withStore { try await ramps.resume(appId: app.appId, by: apiKey) }
    }

    /// Logs the change at info and counts each setting it changed.
    private func record(app appId: String, from old: AppPolicyOverride?, to new: AppPolicyOverride?, apiKey: String, logger: Logger) {
        let changed = Setting.allCases.filter { setting in
            switch setting {
            case .mode: old?.mode != new?.mode
            case .attestationRequiredPercent: old?.attestationRequiredPercent != new?.attestationRequiredPercent
            case .defaultProtection: old?.defaultProtection != new?.defaultProtection
            case .routes: (old?.routeProtections ?? [:]) != (new?.routeProtections ?? [:])
            case .allowedCategories: old?.allowedCategories != new?.allowedCategories
            case .minimumBundleVersion: old?.minimumBundleVersion != new?.minimumBundleVersion
            case .requireAuthenticatorExtensions: old?.requiresAuthenticatorExtensions != new?.requiresAuthenticatorExtensions
            }
        }
        guard !changed.isEmpty, let configured = apps.configuredPolicy(for: appId) else { return }
        let ramped = AppCatalog.ramped(configured, apps.ramp(for: appId))
        logger.info("app policy changed", metadata: [
            "app": .string(appId), "api_key": .string(apiKey), "settings": .string(changed.map(\.rawValue).joined(separator: ",")),
            "old": .string(AppPolicyOverrides.summary(AppCatalog.applying(old, to: ramped), old)),
            "new": .string(AppPolicyOverrides.summary(AppCatalog.applying(new, to: ramped), new)),
        ])
        for setting in changed {
            Counter(label: MetricFamily.appPolicyChanges.name, dimensions: [("app", appId), ("setting", setting.rawValue)]).increment()
        }
    }

    /// Each app's change counters at 0, so that `increase()` sees the first change.
    public static func publishZeros(apps: [String]) {
        for appId in apps {
            for setting in Setting.allCases {
                Counter(label: MetricFamily.appPolicyChanges.name, dimensions: [("app", appId), ("setting", setting.rawValue)]).increment(by: 0)
            }
        }
    }
}
