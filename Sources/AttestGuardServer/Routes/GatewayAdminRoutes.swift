import Foundation
import Hummingbird
import NIOPosix
import AttestGuardRuntime

/// `GET /v1/admin/gateway` (the route policies this process decides forward-auth by, and the problems of a rejected
/// reload; scope `admin` or `analyst`, listing only the apps the key may use and the problems of their files) and
/// `POST /v1/admin/gateway/reload` (load the policy directory again now, scope `admin` for every app: one reload
/// changes every app's policies, so a key limited to some apps may not trigger it).
struct GatewayAdminRoutes {
    let reloader: GatewayPolicyReloader

    func register(on router: Router<AttestGuardRequestContext>, keys: APIKeyRing) {
        router.group("v1/admin/gateway").add(middleware: APIKeyMiddleware(ring: keys, scopes: [.admin, .analyst])).get(use: status)
        router.group("v1/admin/gateway").add(middleware: APIKeyMiddleware(ring: keys, scope: .admin)).post("reload", use: reload)
    }

    @Sendable func status(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        try JSONResponse.make(filtered(GatewayPolicyStatusBody(reloader.status, reloaded: nil), for: context.apiKey), status: .ok)
    }

    @Sendable func reload(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        try context.requireAccessToEveryApp(for: "a reload of the gateway policies")
        // Reading the files blocks: on NIO's thread pool, not on the connection's event loop.
        let reloader = self.reloader
        let after = try await NIOThreadPool.singleton.runIfActive { reloader.reload(reason: "admin request") }
        return try JSONResponse.make(filtered(GatewayPolicyStatusBody(after, reloaded: after.rejected.isEmpty), for: context.apiKey), status: .ok)
    }

    /// What a key may see of the status: its apps, and the problems of their files in the set in force (a problem in
    /// another app's file, or in a file no loaded app owns, belongs to the operators of every app).
    private func filtered(_ status: GatewayPolicyStatusBody, for key: APIKey?) -> GatewayPolicyStatusBody {
        var body = status
        body.apps = body.apps.filter { key?.allows(app: $0) == true }
        if key?.apps != nil {
            let files = Set(body.apps.flatMap { reloader.policies?.files(of: $0).map(\.file) ?? [] })
            body.rejected = body.rejected.filter { files.contains($0.file) }
        }
        return body
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
