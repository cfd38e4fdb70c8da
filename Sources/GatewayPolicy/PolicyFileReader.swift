import PolicyFiles
import AttestVocabulary
import Yams

/// Reads one gateway policy file into an ``AppRoutePolicy``, collecting every problem at its line and column:
///
/// ```yaml
/// version: 1
/// app: ABCDE12345.com.example.shop
/// hosts: [api.example.com]        # optional: any host
/// pathPrefix: /                   # optional: the app's part of the hosts' paths
/// default: require                # require | token | score | open | require-for-rollout (unmatched paths)
/// review: pass                    # pass | refuse
/// scoreTokens: false              # score requests with a valid session token on `token` routes
/// routes:
///   - { path: /api/promos/claim, methods: [POST], protection: require, action: claim_promo }
///   - { path: /api/catalog/**, methods: [GET, HEAD], protection: open }
///   - { path: /api/feed, methods: [GET], protection: token, scoreTokens: true }
/// ```
struct PolicyFileReader {
    /// The keys of a file; `review` (what a review verdict does) is named after the decision.
    static let topLevelKeys = ["version", "app", "hosts", "pathPrefix", "default", Decision.review.rawValue, scoreTokensKey, "routes"]
    static let routeKeys = ["path", "methods", "protection", "action", Decision.review.rawValue, scoreTokensKey]
    static let scoreTokensKey = "scoreTokens"
    /// The methods a route may name.
    static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    let document: YAMLDocument
    private(set) var errors: [PolicyFileProblem] = []

    init(_ document: YAMLDocument) {
        self.document = document
    }

    /// The file's policy, or `nil` when it has problems (in ``errors``).
    mutating func read() -> AppRoutePolicy? {
        guard case .mapping(let mapping)? = document.root else {
            errors.append(document.error(.invalidField, at: document.root, "a policy file is a mapping of \(Self.topLevelKeys.joined(separator: ", "))"))
            return nil
        }
        var appId: String?
        var namesApp = false
        var hosts: Set<String> = []
        var prefix = RequestPath(requestTarget: "/")
        var defaultProtection = RouteProtection.require
        var review = ReviewHandling.pass
        var scoresTokens = false
        var routes: [AppRoutePolicy.Route] = []
        for (key, value) in mapping {
            switch key.scalar?.string {
            case "version":
                if value.int != 1 { errors.append(document.error(.invalidField, at: value, "unsupported policy file version", hint: "write `version: 1`")) }
            case "app":
                namesApp = true
                if let text = value.scalar?.string, AppIdGrammar.isWellFormed(text) {
                    appId = text
                } else {
                    errors.append(document.error(.invalidField, at: value, "`app` is an app id, TEAMID.bundle.id in ASCII"))
                }
            case "hosts":
                hosts = Set(strings(value, field: "hosts").map { $0.lowercased() })
            case "pathPrefix":
                if let text = value.scalar?.string, text.hasPrefix("/") {
                    prefix = RequestPath(requestTarget: text)
                } else {
                    errors.append(document.error(.invalidField, at: value, "`pathPrefix` is a path starting with /"))
                }
            case "default":
                defaultProtection = choice(value, field: "default") ?? defaultProtection
            case Decision.review.rawValue:
                review = choice(value, field: Decision.review.rawValue) ?? review
            case Self.scoreTokensKey:
                scoresTokens = flag(value, field: Self.scoreTokensKey) ?? scoresTokens
            case "routes":
                guard case .sequence(let sequence) = value else {
                    errors.append(document.error(.invalidField, at: value, "`routes` is a list of routes, each starting with `- path:`"))
                    continue
                }
                routes = sequence.compactMap { route($0) }
            default:
                errors.append(document.error(.unknownField, at: key, "unknown key `\(PolicyFileLimits.excerpt(key.scalar?.string ?? "?"))`",
                                             hint: "keys: \(Self.topLevelKeys.joined(separator: ", "))"))
            }
        }
        guard let appId else {
            if !namesApp { errors.append(document.error(.missingField, at: document.root, "the file names no `app`")) }
            return nil
        }
        guard errors.isEmpty else { return nil }
        return AppRoutePolicy(
            appId: appId, hosts: hosts, pathPrefix: prefix, defaultProtection: defaultProtection, review: review, scoresTokens: scoresTokens, routes: routes,
            file: document.path
        )
    }

    private mutating func route(_ node: Node) -> AppRoutePolicy.Route? {
        guard case .mapping(let mapping) = node else {
            errors.append(document.error(.invalidField, at: node, "a route is a mapping of \(Self.routeKeys.joined(separator: ", "))"))
            return nil
        }
        var pattern: PathPattern?
        var methods: Set<String> = []
        var protection: RouteProtection?
        var action: String?
        var review: ReviewHandling?
        var scoresTokens: Bool?
        let before = errors.count
        for (key, value) in mapping {
            switch key.scalar?.string {
            case "path":
                pattern = value.scalar.flatMap { PathPattern($0.string) }
                if pattern == nil {
                    errors.append(document.error(.invalidField, at: value, "`path` is a path pattern starting with /: segments, `*` for one segment, a final `**` for any below"))
                }
            case "methods":
                for method in strings(value, field: "methods") {
                    if Self.methods.contains(method.uppercased()) {
                        methods.insert(method.uppercased())
                    } else {
                        errors.append(document.error(.invalidField, at: value, "unknown method \(PolicyFileLimits.excerpt(method))", hint: Self.methods.sorted().joined(separator: ", ")))
                    }
                }
            case "protection":
                protection = choice(value, field: "protection")
            case "action":
                if let text = value.scalar?.string, (1...64).contains(text.utf8.count), text.utf8.allSatisfy({ (0x21..<0x7F).contains($0) }) {
                    action = text
                } else {
                    errors.append(document.error(.invalidField, at: value, "`action` is 1-64 printable ASCII characters, as the rules compare it"))
                }
            case Decision.review.rawValue:
                review = choice(value, field: Decision.review.rawValue)
            case Self.scoreTokensKey:
                scoresTokens = flag(value, field: Self.scoreTokensKey)
            default:
                errors.append(document.error(.unknownField, at: key, "unknown route key `\(PolicyFileLimits.excerpt(key.scalar?.string ?? "?"))`",
                                             hint: "keys: \(Self.routeKeys.joined(separator: ", "))"))
            }
        }
        if pattern == nil, errors.count == before { errors.append(document.error(.missingField, at: node, "the route has no `path`")) }
        if protection == nil, errors.count == before { errors.append(document.error(.missingField, at: node, "the route has no `protection`")) }
        guard let pattern, let protection, errors.count == before else { return nil }
        return AppRoutePolicy.Route(
            methods: methods, path: pattern, protection: protection, action: action, review: review, scoresTokens: scoresTokens,
            location: "\(document.path):\(node.mark?.line ?? 0)"
        )
    }

    private mutating func choice<Value: RawRepresentable & CaseIterable>(_ node: Node, field: String) -> Value? where Value.RawValue == String {
        if let text = node.scalar?.string, let value = Value(rawValue: text) { return value }
        errors.append(document.error(.invalidField, at: node, "`\(field)` is one of \(Value.allCases.map(\.rawValue).joined(separator: ", "))"))
        return nil
    }

    private mutating func flag(_ node: Node, field: String) -> Bool? {
        if let flag = node.scalar.flatMap({ Bool.construct(from: $0) }) { return flag }
        errors.append(document.error(.invalidField, at: node, "`\(field)` is true or false"))
        return nil
    }

    private mutating func strings(_ node: Node, field: String) -> [String] {
        if let text = node.scalar?.string { return [text] }
        guard case .sequence(let sequence) = node else {
            errors.append(document.error(.invalidField, at: node, "`\(field)` is a list"))
            return []
        }
        return sequence.compactMap { item in
            guard let text = item.scalar?.string else {
                errors.append(document.error(.invalidField, at: item, "`\(field)` holds text items"))
                return nil
            }
            return text
        }
    }
}
