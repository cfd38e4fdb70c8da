/// Every app's route policy, loaded from one directory of policy files (``GatewayPolicyLoader``). A request is
/// owned by the app whose hosts and longest path prefix match it; within the app the most specific route decides,
/// and an unmatched path gets the app's default. A target whose normalised path an upstream may not serve
/// (``RequestPath/refusal``) is refused before any app or route is chosen; one that servers may read as another
/// path (``RequestPath/isAmbiguous``) is asked for an assertion whatever its route says. A request no app owns has
/// no decision (refused at the gateway).
public struct GatewayPolicySet: Sendable {
    public let apps: [AppRoutePolicy]
    /// `sha256:<16 hex digits>` of the files' paths and texts: what `GET /v1/admin/gateway` and the logs call this set.
    public let version: String

    /// The policy files of `appId` (an app may have several, one per host or path prefix).
    public func files(of appId: String) -> [AppRoutePolicy] {
        apps.filter { $0.appId == appId }
    }

    public init(apps: [AppRoutePolicy], version: String) {
        self.apps = apps
        self.version = version
    }

    /// The decision for a request: its `Host`, method and request-target as the client sent them, with the owning
    /// app's run-time protection changes, if any (`overrides` is asked for that app only). Throws when the target
    /// is refused whatever the routes say.
    public func decide(
        host: String, method: String, requestTarget: String, overrides: (String) -> RouteProtectionOverrides? = { _ in nil }
    ) throws(RefusedRequestTarget) -> RouteDecision? {
        let path = RequestPath(requestTarget: requestTarget)
        if let refusal = path.refusal { throw RefusedRequestTarget(refusal: refusal) }
        let owners = apps.filter { $0.owns(host: host, path: path) }
        // The longest prefix wins; of two equally long, the one naming hosts (an app for any host is a fallback).
        guard let app = owners.max(by: { ($0.pathPrefix.segments.count, $0.hosts.isEmpty ? 0 : 1) < ($1.pathPrefix.segments.count, $1.hosts.isEmpty ? 0 : 1) }) else {
            return nil
        }
        let route = app.route(method: method, path: path)
        let changes = overrides(app.appId)
        let changed = route.map { changes?.routes[$0.path.text] } ?? changes?.defaultProtection
        let protection = changed ?? route?.protection ?? app.defaultProtection
        let written = route?.location ?? "\(app.file): default"
        let matched = changed.map { "\(written), \($0) set at run time" } ?? written
        return RouteDecision(
            appId: app.appId, protection: path.isAmbiguous ? .require : protection, action: route?.action, review: route?.review ?? app.review,
            scoresTokens: route?.scoresTokens ?? app.scoresTokens,
            matched: path.isAmbiguous && protection != .require ? "\(matched), made require: the target is ambiguous" : matched,
            pattern: route?.path.text, path: path.normalized
        )
    }
}

/// A request-target the policy refuses before choosing a route (``RequestPath/refusal``): deciding on its normalised
/// form would decide on another path than the one the gateway passes on.
public struct RefusedRequestTarget: Error, Sendable, Equatable, CustomStringConvertible {
    public let refusal: RequestPath.Refusal

    public init(refusal: RequestPath.Refusal) { self.refusal = refusal }

    public var description: String { "the request-target is refused: \(refusal)" }
}
