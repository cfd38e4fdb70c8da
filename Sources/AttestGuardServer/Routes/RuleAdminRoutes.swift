import AttestGuard
import Foundation
import Hummingbird
import RiskRules

/// `GET /v1/admin/rules` (the rule set this process runs, and the problems of a rejected reload) and
/// `POST /v1/admin/rules/reload` (load the directory again now), scope `admin`.
struct RuleAdminRoutes {
    let reloader: RuleSetReloader

    func register(on router: Router<AttestGuardRequestContext>, keys: APIKeyRing) {
        let admin = router.group("v1/admin/rules").add(middleware: APIKeyMiddleware(ring: keys, scope: .admin))
        admin.get(use: status)
        admin.post("reload", use: reload)
    }

    @Sendable func status(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        try JSONResponse.make(RuleSetStatusBody(reloader.status, reloaded: nil), status: .ok)
    }

    @Sendable func reload(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let after = reloader.reload(reason: "admin request")
        return try JSONResponse.make(RuleSetStatusBody(after, reloaded: after.rejected.isEmpty), status: .ok)
    }
}

/// The rule set a process runs, for operators.
struct RuleSetStatusBody: Encodable {
    struct Problem: Encodable {
        var code: String
        var file: String
        var line: Int
        var column: Int
        var message: String
        var hint: String?
    }

    var version: String
    var directory: String?
    var rules: Int
    var loadedAt: Date
    /// For `POST .../reload`: whether this attempt loaded the files (false: rejected, the set in force stays).
    var reloaded: Bool?
    var rejected: [Problem]
    var rejectedAt: Date?
    /// The shadow set's version, when one runs beside the live set.
    var shadowVersion: String?

    init(_ status: RuleSetReloader.Status, reloaded: Bool?) {
        version = status.version
        directory = status.directory
        rules = status.ruleCount
        loadedAt = status.loadedAt
        self.reloaded = reloaded
        rejected = status.rejected.map { Problem(code: $0.code.rawValue, file: $0.file, line: $0.line, column: $0.column, message: $0.message, hint: $0.hint) }
        rejectedAt = status.rejectedAt
        shadowVersion = status.shadowVersion
    }
}
