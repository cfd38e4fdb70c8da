/// One app's routes at the gateway, from one policy file: which requests it owns (by host and path prefix, never by
/// a client header), what each route asks of them, the action name the rules see, and what a `review` does.
public struct AppRoutePolicy: Sendable {
    /// One route: methods (empty: any) and a path pattern, with what it asks and the action it names.
    public struct Route: Sendable {
        public let methods: Set<String>
        public let path: PathPattern
        public let protection: RouteProtection
        /// `request.action` for the rules (`claim_promo`), or none.
        public let action: String?
        /// Overrides the app's ``AppRoutePolicy/review`` for this route.
        public let review: ReviewHandling?
        /// Overrides the app's ``AppRoutePolicy/scoresTokens`` for this route.
        public let scoresTokens: Bool?
        /// Where the route is written, `file:line`.
        public let location: String

        func matches(method: String, path: RequestPath) -> Bool {
            (methods.isEmpty || methods.contains(method.uppercased())) && self.path.matches(path)
        }
    }

    public let appId: String
    /// Lower-case host names (a port only where written); empty: any host.
    public let hosts: Set<String>
    /// The path prefix the app owns under its hosts, normalised (`/` for all).
    public let pathPrefix: RequestPath
    /// What an unmatched path of the app asks: `require` unless the file says otherwise.
    public let defaultProtection: RouteProtection
    public let review: ReviewHandling
    /// Whether a request that shows a valid session token on a `token` route is scored (the rules, velocity: a store
    /// round trip) rather than passed with the verdict the token was issued with. `false` unless the file says so.
    public let scoresTokens: Bool
    public let routes: [Route]
    /// The policy file.
    public let file: String

    /// Whether the app owns requests to `host` (a `Host` header value, port and all) at `path`.
    func owns(host: String, path: RequestPath) -> Bool {
        let host = host.lowercased()
        let hostWithoutPort = host.split(separator: ":").first.map(String.init) ?? host
        guard hosts.isEmpty || hosts.contains(host) || hosts.contains(hostWithoutPort) else { return false }
        let prefix = pathPrefix.segments
        let segments = path.segments
        return segments.count >= prefix.count && zip(prefix, segments).allSatisfy { $0 == $1 }
    }

    /// The most specific route matching the request, if any.
    func route(method: String, path: RequestPath) -> Route? {
        routes.filter { $0.matches(method: method, path: path) }
            .max { $0.path.specificity < $1.path.specificity }
    }
}
