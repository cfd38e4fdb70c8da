import AttestGuardEngine
import AttestVocabulary
import EventLoopConcurrency
import Foundation
import GatewayPolicy
import Hummingbird
import AttestGuardRuntime

/// `/v1/gateway/auth` (any method, scope `gateway`): forward-auth for nginx `auth_request`, Caddy `forward_auth`
/// and their kind. The gateway passes the protected request's method, request-target and host, the trusted headers
/// (user, client address, body hash) and the app's App Attest headers; the route policy says what the request must
/// show; an assertion is verified and committed by the same engine call as `POST /v1/assertions`, and the request is
/// scored. 200 lets the request through with the verdict headers; 401 and 403 refuse it, with the precise outcome in
/// `X-AttestGuard-Status`. The gateway's own API key failing is 500 `gateway_unauthorized`. An app in monitor mode
/// has its `score`, `token` and `require-for-rollout` routes pass what enforcement would refuse, marked with
/// `X-AttestGuard-Monitor`.
///
/// An answer that admits a session token on a route that does not score tokens depends only on the token, the user,
/// the host, the method and the path, so it says how long a gateway may reuse it (`Cache-Control: max-age`): at most
/// the retired-key refresh period (`sessionTokens.revocationRefreshSeconds`, so that a retired key's tokens stop within
/// twice that period) and never past the token's expiry. Every other answer is `no-store`.
struct ForwardAuthRoutes {
    let engine: Engine
    let policies: GatewayPolicyReloader
    let trusted: ForwardAuthHeaders.Trusted
    let answerWithin: Duration

    init(engine: Engine, policies: GatewayPolicyReloader, settings: GatewaySettings) {
        self.engine = engine
        self.policies = policies
        self.trusted = ForwardAuthHeaders.Trusted(prefix: settings.trustedHeaderPrefix)
        self.answerWithin = settings.answerWithin
    }

    /// `HEAD` is routed as `GET` (``HeadAsGet``): the protected request's method is `X-Original-Method`.
    static let methods: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete, .options]

    func register(on router: Router<AttestGuardRequestContext>, keys: APIKeyRing) {
        let gateway = router.group("v1/gateway").add(middleware: APIKeyMiddleware(ring: keys, scope: .gateway, refusal: .gatewayFault))
        for method in Self.methods { gateway.on("auth", method: method, use: authorize) }
    }

    @Sendable func authorize(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        do {
            let asked = try ForwardAuthRequest(headers: request.headers, authority: request.head.authority, trusted: trusted)
            // Past the deadline the answer is 503 store_unavailable: closed, and before the gateway's own timeout.
            // An assertion whose commit was under way may have been spent; the app retries with a new challenge.
            let answerWithin = self.answerWithin
            let verdict = try await withDeadline(answerWithin, timeoutError: {
                EngineError(.unavailable, code: .storeUnavailable, "forward-auth did not finish within \(answerWithin)")
            }) {
                try await decide(asked, context: context)
            }
            guard let verdict else { return Self.pass(headers: [:]) }
            guard verdict.passes else {
                let message = "the verdict is \(verdict.verdict.decision.rawValue)" + (verdict.verdict.decision == .review ? " and this route refuses reviews" : "")
                throw ForwardAuthRefusal(precise: APIError(.forbidden, code: .requestDenied, message), answer: .forbidden, verdict: verdict)
            }
            var headers = verdict.headers
            if let seconds = verdict.reusableSeconds { headers[.cacheControl] = "max-age=\(seconds)" }
            return Self.pass(headers: headers)
        } catch let refusal as ForwardAuthRefusal {
            return refusal.response()
        } catch let error as EngineError {
            return ForwardAuthRefusal(error, now: engine.clock.now()).response()
        } catch {
            guard let unavailable = EngineError(storeFailure: error) else { throw error }
            return ForwardAuthRefusal(unavailable, now: engine.clock.now()).response()
        }
    }

    /// Counts one answer of `route`: in the metric, and in the store for the console (``GatewayCheckRecorder``).
    private func count(_ outcome: GatewayCheckOutcome, route: RouteDecision, passed: Bool) {
        GatewayCheckOutcome.record(outcome, route: route, passed: passed)
        engine.gatewayChecks.note(appId: route.appId, route: route.pattern ?? GatewayCheckOutcome.defaultRoute, outcome: outcome.rawValue, passed: passed, at: engine.clock.now())
    }

    /// The verdict for the request, or `nil` for an open route; throws the refusals. Counts every answer once a
    /// route owns the request (``GatewayCheckOutcome``).
    private func decide(_ asked: ForwardAuthRequest, context: AttestGuardRequestContext) async throws -> ForwardAuthVerdict? {
        let route: RouteDecision
        do throws(APIError) {
            route = try policies.route(host: asked.caller.host, method: asked.method, requestTarget: asked.caller.requestTarget, apiKey: context.apiKey)
        } catch {
            // No route is the gateway's 403 (with the precise 404), a refused target too (with the precise 400); the
            // key's 500 goes on as it is.
            guard error.code == .routeNotCovered || error.code == .requestTargetRefused else { throw error }
            throw ForwardAuthRefusal(precise: error, answer: .forbidden)
        }
        if route.protection == .open {
            count(.open, route: route, passed: true)
            return nil
        }
        do {
            let (verdict, found) = try await check(asked, route: route, context: context)
            let outcome: GatewayCheckOutcome = !verdict.passes || verdict.monitorMark == .requestDenied ? .denied : found
            count(outcome, route: route, passed: verdict.passes)
            return verdict
        } catch let refusal as ForwardAuthRefusal {
            count(GatewayCheckOutcome(refusing: refusal.precise.code, credentialFault: refusal.answer == .unauthorized), route: route, passed: false)
            throw refusal
        } catch let error as EngineError {
            count(GatewayCheckOutcome(refusing: error.code, credentialFault: ForwardAuthRefusal.failsACheck(error)), route: route, passed: false)
            throw error
        } catch {
            count(.error, route: route, passed: false)
            throw error
        }
    }

    /// The verdict on a route that checks, and what the check found. A `token` route reads the session token only
    /// when no assertion header came (an assertion is the stronger proof); any such route reads a debug token
    /// (`agdt_…` in the same header) then. In monitor mode (the app's `mode`), a
    /// `score`, `token` or `require-for-rollout` route passes what enforcement would refuse (a missing, malformed or
    /// failing assertion or session token, or a build the build policy refuses), scored as unattested and marked
    /// (``ForwardAuthVerdict/wouldRefuse``); `require` routes enforce in every mode.
    private func check(
        _ asked: ForwardAuthRequest, route: RouteDecision, context: AttestGuardRequestContext
    ) async throws -> (ForwardAuthVerdict, GatewayCheckOutcome) {
        let app = try engine.apps.policy(for: route.appId)
        let watching = app.mode == .monitor && route.protection != .require
        let needsUser = route.protection != .score || asked.carriesCredentials
        if needsUser, asked.caller.user == nil {
            throw ForwardAuthRefusal(precise: APIError(.forbidden, code: .userMissing, "this route needs the user the gateway authenticated"), answer: .forbidden)
        }
        do {
            if app.debugTokens != nil, !asked.carriesCredentials, let secret = asked.debugToken, let user = asked.caller.user {
                return (try await debugged(secret, user: user, asked, app: app, route: route, context: context), .debug)
            }
            if route.protection == .token, !asked.carriesCredentials, asked.debugToken == nil, let token = try asked.sessionToken(),
               let user = asked.caller.user {
                return (try await admitted(token, user: user, asked, app: app, route: route, context: context), .token)
            }
            if let credentials = try asked.credentials(), let user = asked.caller.user {
                var submission = AssertionSubmission(
                    appId: app.appId, keyId: credentials.keyId, assertion: credentials.assertion, clientData: credentials.clientData, userId: user,
                    request: AssertedRequest(method: asked.method, path: asked.caller.requestTarget, bodySha256: asked.bodySha256, ip: asked.caller.ip, action: route.action)
                )
                submission.requestId = context.requestId
                let result = try await engine.assertions.assert(submission)
                let verdict = ForwardAuthVerdict(
                    verdict: result.verdict, keyId: credentials.keyId, binding: result.requestBinding.signal, signedBodySha256: result.signedBodySha256, route: route
                )
                return (verdict, .verified)
            }
        } catch let refusal as ForwardAuthRefusal where watching && refusal.answer == .unauthorized {
            return (try await scored(asked, app: app, route: route, context: context, wouldRefuse: refusal.precise.code), .invalid)
        } catch let error as EngineError where watching && ForwardAuthRefusal.failsACheck(error) {
            let outcome = GatewayCheckOutcome(refusing: error.code, credentialFault: true)
            return (try await scored(asked, app: app, route: route, context: context, wouldRefuse: error.code), outcome)
        }
        let assertionRequired =
            switch route.protection {
            case .require, .token: true
            // The user is there: a rollout route without one was refused above as user_missing.
            case .requireForRollout: asked.caller.user.map(app.requiresAttestation(of:)) ?? true
            case .score, .open: false
            }
        if assertionRequired {
            // A debug token sent to an app that accepts none is named where the request is refused anyway, so that its
            // developer learns why; elsewhere it is ignored, as any header the route does not read.
            let missing = asked.debugToken != nil && !asked.carriesCredentials ? ErrorCode.debugTokensNotEnabled
                : route.protection == .token ? .sessionTokenMissing : .assertionMissing
            if watching {
                return (try await scored(asked, app: app, route: route, context: context, wouldRefuse: missing), .missing)
            }
            let message = missing == .debugTokensNotEnabled
                ? DebugTokenService.Refusal.notAccepted(appId: app.appId).message
                : route.protection == .token
                ? "this route requires a session token (X-AppAttest-Token) or an App Attest assertion"
                : "this route requires an App Attest assertion (X-AppAttest-KeyId, -Assertion, -ClientData)"
            throw ForwardAuthRefusal(precise: APIError(.unauthorized, code: missing, message), answer: .unauthorized)
        }
        return (try await scored(asked, app: app, route: route, context: context, wouldRefuse: nil), .unattested)
    }

    /// The verdict for a request whose session token `token` route admitted: the verdict the token was issued with,
    /// or, where the route scores tokens, the request scored with the token's key (`request.binding` `session_token`).
    /// - Throws: 401 with the token's refusal code.
    private func admitted(
        _ token: String, user: Identifier, _ asked: ForwardAuthRequest, app: AppPolicy, route: RouteDecision, context: AttestGuardRequestContext
    ) async throws -> ForwardAuthVerdict {
        let admitted: AdmittedSessionToken
        switch await engine.sessionTokens.admit(token, appId: app.appId, userId: user) {
        case .valid(let valid): admitted = valid
        case .invalid(.retiredKeysUnread):
            // Not the token's fault: refused in every mode, and the app keeps its token.
            let refusal = SessionTokenService.Refusal.retiredKeysUnread
            throw ForwardAuthRefusal(precise: APIError(.serviceUnavailable, code: refusal.code, refusal.message, retryAfterSeconds: 5), answer: .forbidden)
        case .invalid(let refusal):
            let status: HTTPResponse.Status = [.keyRevoked, .keySuperseded, .keyUserMismatch].contains(refusal.code) ? .unprocessableContent : .unauthorized
            throw ForwardAuthRefusal(precise: APIError(status, code: refusal.code, refusal.message), answer: .unauthorized)
        }
        guard route.scoresTokens else {
            var verdict = ForwardAuthVerdict(verdict: admitted.verdict, keyId: admitted.keyId, binding: .sessionToken, signedBodySha256: nil, route: route)
            let untilExpiry = Int(admitted.expiresAt.timeIntervalSince(engine.clock.now()).rounded(.down))
            let reuse = min(untilExpiry, Int(engine.settings.revocationRefresh.components.seconds))
            verdict.reusableSeconds = reuse >= 1 ? reuse : nil
            return verdict
        }
        var scoreRequest = Self.scoreRequest(asked, user: user, app: app, route: route, context: context)
        scoreRequest.keyId = admitted.keyId
        scoreRequest.binding = .sessionToken
        let outcome = try await engine.scorer.score(scoreRequest)
        return ForwardAuthVerdict(verdict: outcome.verdict, keyId: admitted.keyId, binding: .sessionToken, signedBodySha256: nil, route: route)
    }

    /// The verdict for a request whose debug token the app accepts: the request scored with the token standing for a
    /// key (`key.kind` `debug`, `request.binding` `debug_token`).
    /// - Throws: 401 with the token's refusal code.
    private func debugged(
        _ secret: String, user: Identifier, _ asked: ForwardAuthRequest, app: AppPolicy, route: RouteDecision, context: AttestGuardRequestContext
    ) async throws -> ForwardAuthVerdict {
        let tokenId: String
        switch try await engine.debugTokens.admit(secret, appId: app.appId) {
        case .valid(let token): tokenId = token.id
        case .invalid(let refusal):
            throw ForwardAuthRefusal(precise: APIError(.unauthorized, code: refusal.code, refusal.message), answer: .unauthorized)
        }
        var scoreRequest = Self.scoreRequest(asked, user: user, app: app, route: route, context: context)
        scoreRequest.binding = .debugToken
        scoreRequest.debugTokenId = tokenId
        let outcome = try await engine.scorer.score(scoreRequest)
        return ForwardAuthVerdict(verdict: outcome.verdict, keyId: nil, binding: .debugToken, signedBodySha256: nil, route: route)
    }

    /// The request scored without an assertion.
    private func scored(
        _ asked: ForwardAuthRequest, app: AppPolicy, route: RouteDecision, context: AttestGuardRequestContext, wouldRefuse: ErrorCode?
    ) async throws -> ForwardAuthVerdict {
        let outcome = try await engine.scorer.score(Self.scoreRequest(asked, user: asked.caller.user, app: app, route: route, context: context))
        return ForwardAuthVerdict(verdict: outcome.verdict, keyId: nil, binding: .none, signedBodySha256: nil, route: route, wouldRefuse: wouldRefuse)
    }

    /// What every forward-auth verdict is scored from: the app, the user, the client's address and App Attest status,
    /// the route's action and the request id; a caller adds what stood for the key.
    private static func scoreRequest(
        _ asked: ForwardAuthRequest, user: Identifier?, app: AppPolicy, route: RouteDecision, context: AttestGuardRequestContext
    ) -> ScoreRequest {
        var request = ScoreRequest(
            appId: app.appId, endpoint: .score, userId: user, ip: asked.caller.ip, action: route.action, attestStatus: asked.clientAttestStatus
        )
        request.requestId = context.requestId
        return request
    }

    private static func pass(headers: HTTPFields) -> Response {
        var headers = headers
        headers[ForwardAuthHeaders.status] = "200"
        if headers[.cacheControl] == nil { headers[.cacheControl] = "no-store" }
        return Response(status: .ok, headers: headers)
    }
}
