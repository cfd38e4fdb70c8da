import AttestGuardEngine
import Foundation
import Hummingbird
import NIOPosix
import RiskRules
import AttestGuardRuntime

/// `GET /v1/admin/rules` (the rule set this process runs, the problems of a rejected reload, and the version every
/// process sharing the store runs) and `POST /v1/admin/rules/reload` (load the directory again now), scope `admin`
/// for every app.
struct RuleAdminRoutes {
    let reloader: RuleSetReloader
    let heartbeat: ProcessHeartbeat

    func register(on router: Router<AttestGuardRequestContext>, keys: APIKeyRing) {
        router.group("v1/admin/rules").add(middleware: APIKeyMiddleware(ring: keys, scopes: [.admin, .analyst])).get(use: status)
        router.group("v1/admin/rules").add(middleware: APIKeyMiddleware(ring: keys, scope: .admin)).post("reload", use: reload)
    }

    @Sendable func status(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        var body = RuleSetStatusBody(reloader.status, reloaded: nil)
        body.processId = heartbeat.processId
        var processes = [heartbeat.record()]
        do {
            processes = try await heartbeat.processes()
        } catch {
            // The store is down: this process can still say what it runs, and says the list is incomplete.
            context.logger.warning("server process list unavailable", metadata: ["error": .string(String(describing: error))])
            body.processesIncomplete = true
        }
        body.processes = processes.map { process in
            RuleSetStatusBody.Process(
                processId: process.processId, host: process.host, pid: process.pid, startedAt: process.startedAt, seenAt: process.seenAt,
                version: process.ruleSetVersion, shadowVersion: process.shadowVersion, rejected: process.rulesRejected,
                current: process.processId == heartbeat.processId
            )
        }
        return try JSONResponse.make(body, status: .ok)
    }

    @Sendable func reload(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        try context.requireAccessToEveryApp(for: "a reload of the rule set")
        // Reading and compiling the files blocks: on NIO's thread pool, not on the connection's event loop.
        let reloader = self.reloader
        let after = try await NIOThreadPool.singleton.runIfActive { reloader.reload(reason: "admin request") }
        // So that the process list shows the new version at once rather than at the next heartbeat.
        do { try await heartbeat.beat() } catch {
            context.logger.warning("process heartbeat after reload not written", metadata: ["error": .string(String(describing: error))])
        }
        return try JSONResponse.make(RuleSetStatusBody(after, reloaded: after.rejected.isEmpty), status: .ok)
    }
}

/// The rule set a process runs, for operators.
struct RuleSetStatusBody: Encodable {
    /// One server process sharing the store, as it last reported itself.
    struct Process: Encodable {
        var processId: String
        var host: String
        var pid: Int
        var startedAt: Date
        var seenAt: Date
        var version: String
        var shadowVersion: String?
        var rejected: Bool
        /// Whether this is the process answering.
        var current: Bool
    }

    var version: String
    var directory: String?
    var rules: Int
    var loadedAt: Date
    /// For `POST .../reload`: whether this attempt loaded the files (false: rejected, the set in force stays).
    var reloaded: Bool?
    var rejected: [RuleProblemBody]
    var rejectedAt: Date?
    /// The shadow set's version, when one runs beside the live set.
    var shadowVersion: String?
    /// For `GET`: the answering process's id, and every process seen in the last 30 seconds, oldest first.
    var processId: String?
    var processes: [Process]?
    /// Set when the store could not be read, so `processes` holds only this one.
    var processesIncomplete: Bool?

    init(_ status: RuleSetReloader.Status, reloaded: Bool?) {
        version = status.version
        directory = status.directory
        rules = status.ruleCount
        loadedAt = status.loadedAt
        self.reloaded = reloaded
        rejected = status.rejected.map(RuleProblemBody.init)
        rejectedAt = status.rejectedAt
        shadowVersion = status.shadowVersion
    }
}
