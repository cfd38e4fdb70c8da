public import AttestGuardStore
public import Logging

/// Takes the stored app policy overrides (and the stored attestation rollout ramps) into this process's ``AppCatalog``: at start (before the listener accepts
/// requests), every `apps.policyReloadSeconds` (``PeriodicStoreRead``), and at once after this process
/// stores a change. Each change it sees is logged at info, with the API key name that made it; a change made through
/// another process is logged here when it is picked up.
public struct AppPolicyOverrides: Sendable {
    package let store: any AppPolicyOverrideStore
    package let catalog: AppCatalog
    package let logger: Logger

    public init(store: any AppPolicyOverrideStore, catalog: AppCatalog, logger: Logger) {
        self.store = store
        self.catalog = catalog
        self.logger = logger
    }

    /// Reads every stored override and puts them in force; returns what changed.
    @discardableResult
    public func refresh() async throws -> [AppPolicyChange] {
        if let ramps = store as? any AttestationRampStore { catalog.takeRamps(try await ramps.attestationRamps()) }
        let changes = catalog.apply(try await store.appPolicyOverrides())
        for change in changes {
            logger.info("app policy in force", metadata: [
                "app": .string(change.appId),
                "updated_by": .string(change.override?.updatedBy ?? change.previousOverride?.updatedBy ?? "-"),
                "old": .string(Self.summary(change.before, change.previousOverride)),
                "new": .string(Self.summary(change.after, change.override)),
            ])
        }
        return changes
    }

    /// `mode=monitor attestation_required_percent=25 route[/api/orders]=score`: what a log line shows of a policy in
    /// force (the build policy's values only where they restrict something).
    package static func summary(_ app: AppPolicy, _ override: AppPolicyOverride?) -> String {
        var words = ["mode=\(app.mode.rawValue)", "attestation_required_percent=\(app.attestationRequiredPercent)"]
        for (environment, categories) in app.build.allowedCategories.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            words.append("allowed_categories[\(environment.rawValue)]=\(categories.map(\.name).sorted().joined(separator: ","))")
        }
        if let minimum = app.build.minimumInForce { words.append("minimum_bundle_version=\(minimum)") }
        if app.build.requiresExtensions { words.append("require_authenticator_extensions=true") }
        if let protection = override?.defaultProtection { words.append("default_protection=\(protection)") }
        for (path, protection) in (override?.routeProtections ?? [:]).sorted(by: { $0.key < $1.key }) {
            words.append("route[\(path)]=\(protection)")
        }
        return words.joined(separator: " ")
    }
}
