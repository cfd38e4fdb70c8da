/// What the gateway policy says of one request: its app, what the request must show, the action the rules see,
/// what a `review` does, and the route that said so (for logs and `attestguard gateway explain`).
public struct RouteDecision: Sendable, Equatable {
    public let appId: String
    public let protection: RouteProtection
    public let action: String?
    public let review: ReviewHandling
    /// On a `token` route: whether a request with a valid session token is scored.
    public let scoresTokens: Bool
    /// `file:line` of the route, or `<file>: default` when no route matched.
    public let matched: String
    /// The path pattern of the route that matched, as its file writes it; `nil` when the app's default decided.
    public let pattern: String?
    /// The path the decision was made on.
    public let path: String
}
