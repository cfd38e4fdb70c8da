/// Run-time changes to one app's route protections (stored through `PATCH /v1/admin/apps/{appId}/policy`): the
/// protection of the app's unmatched paths, and of routes by their path pattern as the policy file writes it. What
/// they do not name keeps the file's protection; an ambiguous request target is still asked for an assertion.
public struct RouteProtectionOverrides: Sendable, Hashable {
    public var defaultProtection: RouteProtection?
    /// By a route's path pattern as written (`/api/promos/claim`); every route with that path takes it.
    public var routes: [String: RouteProtection]

    public init(defaultProtection: RouteProtection? = nil, routes: [String: RouteProtection] = [:]) {
        self.defaultProtection = defaultProtection
        self.routes = routes
    }

    /// The stored words read back; a word this build does not know keeps the file's protection.
    public init(defaultProtection: String?, routes: [String: String]) {
        self.defaultProtection = defaultProtection.flatMap(RouteProtection.init(rawValue:))
        self.routes = routes.compactMapValues(RouteProtection.init(rawValue:))
    }

    public var isEmpty: Bool { defaultProtection == nil && routes.isEmpty }
}
