import AttestGuardWire
import AttestGuardEngine
import Hummingbird
import AttestGuardRuntime

/// `POST /v1/score` (scope `score`): the verdict of the rule set in force for a request the gateway is about to
/// serve, with the signals it read. Scoring reads the store only; it never calls Apple.
struct ScoreRoutes {
    let engine: Engine
    let body: JSONBody

    func register(on router: Router<AttestGuardRequestContext>, keys: APIKeyRing) {
        router.group("v1").add(middleware: APIKeyMiddleware(ring: keys, scope: .score)).post("score", use: score)
    }

    @Sendable func score(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let input = try await body.decode(ScoreRequestBody.self, from: request)
        try context.requireAccess(to: input.appId)
        var scoreRequest = try input.scoreRequest()
        scoreRequest.requestId = context.requestId
        let outcome = try await engine.scorer.score(scoreRequest)
        return JSONResponse.make(json: ScoreResponseJSON.bytes(verdict: outcome.verdict, signals: outcome.signalList, keys: outcome.signalKeys), status: .ok)
    }
}
