import Hummingbird
import HTTPTypes

/// Answers a request for a known path with a method it does not take: 405 `method_not_allowed` with `Allow`
/// listing the methods it does take, rather than the router's 404 (which would tell a client the path is wrong).
///
/// Added to the router after every route, so that it runs only for requests no route matched.
struct MethodNotAllowedMiddleware: RouterMiddleware {
    typealias Context = AttestGuardRequestContext

    /// One route path and the methods registered on it.
    struct Route: Sendable {
        let path: RouterPath
        let methods: [HTTPRequest.Method]
    }

    let routes: [Route]

    /// The routes of `router` as registered so far.
    init(routes descriptions: [Router<Context>.RouteDescription]) {
        var byPath: [String: Route] = [:]
        for description in descriptions {
            let existing = byPath[description.path.description]?.methods ?? []
            byPath[description.path.description] = Route(path: description.path, methods: existing + [description.method])
        }
        routes = byPath.values.sorted { $0.path.description < $1.path.description }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let allowed = allowedMethods(for: request.uri.path)
        guard !allowed.isEmpty else { return try await next(request, context) }
        throw APIError(
            .methodNotAllowed, code: .methodNotAllowed, "\(request.method.rawValue) is not allowed here: use \(allowed.joined(separator: ", "))",
            headers: [.allow: allowed.joined(separator: ", ")]
        )
    }

    /// The methods of every route whose path matches `path`, sorted, without repeats.
    func allowedMethods(for path: String) -> [String] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        var methods = Set<String>()
        for route in routes where route.path.components.count == segments.count {
            if zip(route.path.components, segments).allSatisfy({ element, segment in element ~= segment }) {
                methods.formUnion(route.methods.map(\.rawValue))
            }
        }
        return methods.sorted()
    }
}
