import AttestGuardEngine
import Foundation
import Hummingbird
import AttestGuardRuntime

/// The signed-in pages: each reads the app and range of its query (``ConsoleScope``), asks the engine for one
/// bounded aggregate and draws it.
struct ConsolePages: Sendable {
    /// Decisions one search page lists.
    static let searchLimit = 100

    let engine: Engine
    let templates: ConsoleTemplates

    @Sendable func verdicts(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let scope = try scope(request, context)
        let report = try await engine.console.verdicts(appId: scope.appId, range: scope.range)
        let frame = ConsoleFrame(title: "Verdicts", path: "/console", scope: scope, to: report.to)
        return templates.page("verdicts", VerdictsPage(frame: frame, report))
    }

    @Sendable func rules(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let scope = try scope(request, context)
        let report = try await engine.console.verdicts(appId: scope.appId, range: scope.range)
        let frame = ConsoleFrame(title: "Rule hits, live vs shadow", path: "/console/rules", scope: scope, to: report.to)
        return templates.page("rules", RulesPage(frame: frame, report))
    }

    @Sendable func shadow(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let scope = try scope(request, context)
        let report = try await engine.console.verdicts(appId: scope.appId, range: scope.range)
        let frame = ConsoleFrame(title: "Shadow disagreements", path: "/console/shadow", scope: scope, to: report.to)
        return templates.page("shadow", ShadowPage(frame: frame, report))
    }

    @Sendable func rollout(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let scope = try scope(request, context)
        async let verdicts = engine.console.verdicts(appId: scope.appId, range: scope.range)
        async let checks = engine.console.gatewayChecks(appId: scope.appId, range: scope.range)
        let report = try await verdicts
        let frame = ConsoleFrame(title: "Attestation rollout", path: "/console/rollout", scope: scope, to: report.to)
        return templates.page("rollout", RolloutPage(frame: frame, report, gatewayChecks: try await checks))
    }

    @Sendable func risk(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let scope = try scope(request, context)
        let report = try await engine.console.riskMetrics(appId: scope.appId)
        let frame = ConsoleFrame(title: "Risk-metric distribution", path: "/console/risk", scope: scope)
        return templates.page("risk", RiskPage(frame: frame, report))
    }

    /// `by` (key, user or device) and `q`: a key's history and the subject's decisions over the range; the form
    /// alone without `q`.
    @Sendable func search(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let query = try QueryParameters(request.uri.query)
        let scope = try ConsoleScope(key: try Self.key(context), query: query, catalog: engine.apps)
        let by = query["by"] ?? "key"
        let text = (query["q"] ?? "").trimmingCharacters(in: .whitespaces)
        let frame = ConsoleFrame(title: "Search", path: "/console/search", scope: scope)
        guard !text.isEmpty else {
            return templates.page("search", SearchPage(frame: frame, scope: scope, by: by, query: "", history: nil, page: nil))
        }
        let subject: DecisionQuery.Subject
        switch by {
        case "key": subject = .key(try KeyId(pathText: text, field: "q"))
        case "user": subject = .user(try Identifier(text, field: "q"))
        case "device": subject = .device(try Identifier(text, field: "q"))
        default: throw APIError.badRequest(.invalidField, "by must be key, user or device")
        }
        var history: KeyHistory?
        if case .key(let keyId) = subject {
            do {
                history = try await engine.history.keyHistory(appId: scope.appId, keyId: keyId)
            } catch let error as EngineError where error.code == .keyNotFound {
                history = nil
            }
        }
        let now = engine.clock.now()
        let page = try await engine.history.decisions(DecisionQuery(
            appId: scope.appId, subject: subject, from: now.addingTimeInterval(-scope.range.duration), to: now.addingTimeInterval(1),
            limit: Self.searchLimit
        ))
        return templates.page("search", SearchPage(frame: frame, scope: scope, by: by, query: text, history: history, page: page))
    }

    private func scope(_ request: Request, _ context: AttestGuardRequestContext) throws -> ConsoleScope {
        try ConsoleScope(key: try Self.key(context), query: try QueryParameters(request.uri.query), catalog: engine.apps)
    }

    /// The session's key, which ``ConsoleSessionMiddleware`` put in the context.
    private static func key(_ context: AttestGuardRequestContext) throws -> APIKey {
        guard let key = context.apiKey else { throw APIError(.unauthorized, code: .unauthorized, "sign in at /console/login") }
        return key
    }
}
