import AttestGuardStore
import AttestVocabulary
public import Foundation

/// An app's forward-auth answers over a console range, per protected route: how many verified, came without an
/// assertion, failed or were replayed, and so how many `require` would refuse on the route were it turned on.
public struct GatewayCheckReport: Sendable {
    /// One policy route's answers.
    public struct Route: Sendable, Equatable {
        /// The route's path pattern, or `default`.
        public var route: String
        /// Answers per outcome (`verified`, `unattested`, `missing`, ...), passed and refused together.
        public var outcomes: [String: Int64]
        public var passed: Int64
        public var refused: Int64

        public var total: Int64 { passed + refused }

        /// The answers `require` would refuse: every one but an assertion that verified (or a debug token an app
        /// that accepts them admitted) and passed the verdict (`open` answers count too: an open route checks
        /// nothing).
        public var refusedUnderRequire: Int64 { total - verifiedAndPassed }

        var verifiedAndPassed: Int64
    }

    public var appId: String
    public var from: Date
    public var to: Date
    /// Ordered by route.
    public var routes: [Route]
    /// Whether the store had more rows than the report reads.
    public var truncated: Bool

    init(appId: String, from: Date, to: Date, counts: [GatewayCheckCount], truncated: Bool) {
        self.appId = appId
        self.from = from
        self.to = to
        self.truncated = truncated
        var routes: [String: Route] = [:]
        for count in counts {
            var route = routes[count.route] ?? Route(route: count.route, outcomes: [:], passed: 0, refused: 0, verifiedAndPassed: 0)
            route.outcomes[count.outcome, default: 0] += count.count
            if count.passed { route.passed += count.count } else { route.refused += count.count }
            if count.passed, GatewayCheckOutcome(rawValue: count.outcome)?.satisfiesRequire == true { route.verifiedAndPassed += count.count }
            routes[count.route] = route
        }
        self.routes = routes.values.sorted { $0.route < $1.route }
    }
}
