public import AttestGuardEngine
public import Foundation
public import GatewayPolicy
public import Logging
public import RiskRules
import Synchronization

/// The gateway route policies forward-auth decides by, loaded from `gateway.policyDirectory` at start and again when
/// the files change or an operator asks (`POST /v1/admin/gateway/reload`). As with rule sets, a set with problems
/// never replaces the one in force: its problems are logged and reported by `GET /v1/admin/gateway` until a good set
/// loads. A policy naming an app the server does not configure is a problem too, so that no route decides for an app
/// that every request would then fail on.
public final class GatewayPolicyReloader: Sendable {
    /// What `GET /v1/admin/gateway` reports for this process.
    public struct Status: Sendable {
        public var directory: String?
        /// The set in force: `none` without a directory.
        public var version: String
        public var apps: [String]
        public var loadedAt: Date
        /// Problems of the last rejected attempt since the last successful load.
        public var rejected: [RuleSetError]
        public var rejectedAt: Date?
    }

    public let directory: String?
    private let configuredApps: Set<String>
    /// The apps that issue session tokens: only theirs may have `token` routes.
    private let tokenApps: Set<String>
    /// Where the apps' run-time route protection changes are read from.
    private let apps: AppCatalog
    private let clock: any EngineClock
    private let logger: Logger
    private let state: Mutex<(policies: GatewayPolicySet?, status: Status)>
    /// Held through a whole reload, so that two at once (the watcher's and an operator's) store in the order they read.
    private let reloading = Mutex(())

    /// Loads `settings.policyDirectory`, if any; throws ``ConfigurationError`` when it has problems, so that a server
    /// never starts with policies it cannot apply.
    public init(settings: GatewaySettings, apps: AppCatalog, clock: any EngineClock, logger: Logger) throws {
        self.directory = settings.policyDirectory
        self.configuredApps = Set(apps.all.map(\.appId))
        self.tokenApps = Set(apps.all.filter { $0.sessionTokenLifetime != nil }.map(\.appId))
        self.apps = apps
        self.clock = clock
        self.logger = logger
        var policies: GatewayPolicySet?
        if let directory {
            do {
                policies = try Self.load(directory, apps: configuredApps, tokenApps: tokenApps)
            } catch {
                for problem in error.errors { logger.error("gateway policy problem", metadata: ["problem": .string(problem.description)]) }
                throw ConfigurationError(
                    key: "gateway.policyDirectory",
                    "the policies in \(directory) do not load: \(error.errors.count) problem(s), first: \(error.errors.first?.description ?? "?")"
                )
            }
            logger.info("gateway policies loaded", metadata: ["directory": .string(directory), "version": .string(policies?.version ?? "none")])
        }
        let status = Status(
            directory: directory, version: policies?.version ?? "none", apps: policies?.apps.map(\.appId) ?? [], loadedAt: clock.now(),
            rejected: [], rejectedAt: nil
        )
        self.state = Mutex((policies, status))
    }

    /// The set in force; `nil` without a policy directory.
    public var policies: GatewayPolicySet? { state.withLock { $0.policies } }

    public var status: Status { state.withLock { $0.status } }

    /// Why no route decides for a request the gateway describes.
    public enum RouteRefusal: Error, Sendable, Equatable {
        /// No route may be chosen for the target as sent (the gateway passes it on unchanged).
        case targetRefused(String)
        /// No policy owns the request, or its app is not one the caller may use.
        case notCovered(String)
    }

    /// The route decision for a request the gateway describes, for a gateway key that may use the app.
    public func decideRoute(host: String, method: String, requestTarget: String, apiKey: APIKey?) throws(RouteRefusal) -> RouteDecision {
        let apps = self.apps
        let overrides = { (appId: String) -> RouteProtectionOverrides? in
            apps.override(for: appId).map { RouteProtectionOverrides(defaultProtection: $0.defaultProtection, routes: $0.routeProtections) }
        }
        let decided: RouteDecision?
        do {
            decided = try policies?.decide(host: host, method: method, requestTarget: requestTarget, overrides: overrides)
        } catch {
            throw .targetRefused("\(error): the gateway passes the target on as sent, so no route is chosen for it")
        }
        guard let route = decided else {
            let message = directory == nil
                ? "no gateway policy is configured (gateway.policyDirectory)"
                : "no app's gateway policy owns \(host.prefix(256)) \(requestTarget.prefix(256))"
            throw .notCovered(message)
        }
        // A client picks the path, so a path another app owns on a shared host is the client's 404, never a 5xx.
        guard apiKey?.allows(app: route.appId) == true else {
            throw .notCovered("the request belongs to an app this gateway's API key may not use")
        }
        return route
    }

    /// Loads the directory again; returns the status after the attempt. Without a directory nothing changes.
    @discardableResult
    public func reload(reason: String) -> Status {
        guard let directory else { return status }
        return reloading.withLock { _ in load(directory, reason: reason) }
    }

    private func load(_ directory: String, reason: String) -> Status {
        let now = clock.now()
        do {
            let loaded = try Self.load(directory, apps: configuredApps, tokenApps: tokenApps)
            let loadedStatus = Status(
                directory: directory, version: loaded.version, apps: loaded.apps.map(\.appId), loadedAt: now, rejected: [], rejectedAt: nil
            )
            let previous = state.withLock { current in
                let previous = current.status.version
                current = (loaded, loadedStatus)
                return previous
            }
            if previous != loaded.version {
                logger.notice("gateway policies reloaded", metadata: [
                    "reason": .string(reason), "version": .string(loaded.version), "previous": .string(previous),
                ])
            }
        } catch {
            state.withLock { current in
                current.status.rejected = error.errors
                current.status.rejectedAt = now
            }
            for problem in error.errors {
                logger.error("gateway policy reload rejected; the policies in force stay", metadata: [
                    "reason": .string(reason), "problem": .string(problem.description),
                ])
            }
        }
        return status
    }

    private static func load(_ directory: String, apps: Set<String>, tokenApps: Set<String>) throws(RuleSetLoadFailure) -> GatewayPolicySet {
        let policies = try GatewayPolicyLoader.load(directory: directory)
        let unknown = policies.apps.filter { !apps.contains($0.appId) }.map { policy in
            RuleSetError(
                .invalidField, file: policy.file, line: 0, column: 0, "app \(policy.appId) is not configured on this server",
                hint: "add it to apps.names, or remove this policy file"
            )
        }
        // A token route of an app that issues no tokens would refuse every app that follows the contract.
        let tokenless = policies.apps.filter { apps.contains($0.appId) && !tokenApps.contains($0.appId) }.flatMap { policy in
            let locations = (policy.defaultProtection == .token ? ["\(policy.file): default"] : []) + policy.routes.filter { $0.protection == .token }.map(\.location)
            return locations.map { location in
                RuleSetError(
                    .invalidField, file: policy.file, line: Int(location.split(separator: ":").last ?? "") ?? 0, column: 0,
                    "app \(policy.appId) issues no session tokens, so no route of it may be `token`",
                    hint: "set apps.<app>.sessionTokens.enabled (and sessionTokens.signingKeyFile), or protect the route with require"
                )
            }
        }
        guard unknown.isEmpty, tokenless.isEmpty else { throw RuleSetLoadFailure(errors: unknown + tokenless) }
        return policies
    }
}
