import Foundation
import Hummingbird
import NIOPosix

/// `GET /v1/admin/gateway` (the route policies this process decides forward-auth by, and the problems of a rejected
/// reload; scope `admin` or `analyst`, listing only the apps the key may use) and `POST /v1/admin/gateway/reload`
/// (load the policy directory again now, scope `admin`).
struct GatewayAdminRoutes {
    let reloader: GatewayPolicyReloader

    func register(on router: Router<AttestGuardRequestContext>, keys: APIKeyRing) {
        router.group("v1/admin/gateway").add(middleware: APIKeyMiddleware(ring: keys, scopes: [.admin, .analyst])).get(use: status)
        router.group("v1/admin/gateway").add(middleware: APIKeyMiddleware(ring: keys, scope: .admin)).post("reload", use: reload)
    }

    @Sendable func status(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        var body = GatewayPolicyStatusBody(reloader.status, reloaded: nil)
        body.apps = body.apps.filter { context.apiKey?.allows(app: $0) == true }
        return try JSONResponse.make(body, status: .ok)
    }

    @Sendable func reload(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        // Reading the files blocks: on NIO's thread pool, not on the connection's event loop.
        let reloader = self.reloader
        let after = try await NIOThreadPool.singleton.runIfActive { reloader.reload(reason: "admin request") }
        var body = GatewayPolicyStatusBody(after, reloaded: after.rejected.isEmpty)
        body.apps = body.apps.filter { context.apiKey?.allows(app: $0) == true }
        return try JSONResponse.make(body, status: .ok)
    }
}

/// The route policies a process runs, for operators.
struct GatewayPolicyStatusBody: Encodable {
    var version: String
    var directory: String?
    var apps: [String]
    var loadedAt: Date
    /// For `POST .../reload`: whether this attempt loaded the files (false: rejected, the set in force stays).
    var reloaded: Bool?
    var rejected: [RuleProblemBody]
    var rejectedAt: Date?

    init(_ status: GatewayPolicyReloader.Status, reloaded: Bool?) {
        version = status.version
        directory = status.directory
        apps = status.apps
        loadedAt = status.loadedAt
        self.reloaded = reloaded
        rejected = status.rejected.map(RuleProblemBody.init)
        rejectedAt = status.rejectedAt
    }
}
