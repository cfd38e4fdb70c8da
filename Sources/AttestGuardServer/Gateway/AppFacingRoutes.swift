import AttestGuardEngine
import AttestGuardWire
import AttestVocabulary
import Crypto
import Foundation
import Hummingbird
import AttestGuardRuntime

/// The routes an app reaches through its gateway, scope `gateway`: a challenge (`POST /v1/app/challenges`),
/// registering an attestation (`POST /v1/app/attestations`), whether this user must attest
/// (`GET /v1/app/attestation-required`) and validating the device with DeviceCheck once a session
/// (`POST /v1/app/devicecheck`), and reporting how an attestation attempt went for the rollout ramp
/// (`POST /v1/app/attestation-outcomes`). Who asks comes only from the gateway (``GatewayCaller``): the app from the
/// route policy of the client's host and client-facing path, the user and the client's address from the trusted
/// headers; identity fields in a body are not read. Every route needs the gateway's user (403 `user_missing`).
struct AppFacingRoutes {
    let engine: Engine
    let policies: GatewayPolicyReloader
    let trusted: ForwardAuthHeaders.Trusted
    let body: JSONBody

    init(engine: Engine, policies: GatewayPolicyReloader, settings: GatewaySettings, body: JSONBody) {
        self.engine = engine
        self.policies = policies
        self.trusted = ForwardAuthHeaders.Trusted(prefix: settings.trustedHeaderPrefix)
        self.body = body
    }

    func register(on router: Router<AttestGuardRequestContext>, keys: APIKeyRing) {
        let app = router.group("v1/app").add(middleware: APIKeyMiddleware(ring: keys, scope: .gateway, refusal: .gatewayFault))
        app.post("challenges", use: issueChallenge)
        app.post("attestations", use: attest)
        app.get("attestation-required", use: attestationRequired)
        app.post("devicecheck", use: validateDevice)
        app.post("attestation-outcomes", use: reportOutcome)
        app.post("session-tokens", use: exchangeSessionToken)
    }

    /// Exchanges the request's assertion for a session token (201), verified, committed and scored as forward-auth
    /// does it: the app signs this very request (its method, the client-facing request-target, the body as received).
    /// A `deny` verdict is 403 `request_denied`; an app that issues no tokens 404 `session_tokens_not_enabled`.
    @Sendable func exchangeSessionToken(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let caller = try identify(request, context: context)
        try engine.sessionTokens.issuer(for: caller.appId)
        let credentials: ForwardAuthRequest.Credentials?
        do {
            credentials = try ForwardAuthRequest.credentials(in: request.headers)
        } catch {
            throw error.precise
        }
        guard let credentials else {
            throw APIError(.unauthorized, code: .assertionMissing, "a session token is exchanged for an assertion of this request (X-AppAttest-KeyId, -Assertion, -ClientData)")
        }
        let bytes = try await body.collect(request)
        var submission = AssertionSubmission(
            appId: caller.appId, keyId: credentials.keyId, assertion: credentials.assertion, clientData: credentials.clientData, userId: caller.user,
            request: AssertedRequest(
                method: request.method.rawValue, path: caller.requestTarget, bodySha256: Base64Text.urlEncoded(SHA256.hash(data: Data(bytes.readableBytesView))),
                ip: caller.ip, action: Self.sessionTokenAction
            )
        )
        submission.requestId = context.requestId
        switch try await engine.sessionTokens.exchange(submission) {
        case .issued(let issued, _):
            let seconds = max(0, Int(issued.expiresAt.timeIntervalSince(engine.clock.now()).rounded(.down)))
            var response = try JSONResponse.make(SessionTokenResponseBody(token: issued.token, expiresAt: issued.expiresAt, expiresIn: seconds), status: .created)
            response.headers[.cacheControl] = "no-store"
            return response
        case .denied:
            throw APIError(.forbidden, code: .requestDenied, "the verdict is deny: no session token")
        }
    }

    /// The action the rules read for a session-token exchange (`request.action`).
    static let sessionTokenAction = "session_token"

    @Sendable func issueChallenge(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let caller = try identify(request, context: context)
        let input = try await body.decode(AppChallengeRequestBody.self, from: request)
        let keyId = try input.keyId.map { text throws(EngineError) in try KeyId(base64: text) }
        let issued = try await engine.challenges.issue(
            ChallengeRequest(appId: caller.appId, purpose: ChallengePurpose(input.purpose), userId: caller.user, keyId: keyId, ip: caller.ip),
            apiKeyName: context.apiKey?.name
        )
        return try JSONResponse.make(AppChallengeResponseBody(issued), status: .created)
    }

    @Sendable func attest(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let caller = try identify(request, context: context)
        let input = try await body.decode(AppAttestationRequestBody.self, from: request)
        var submission = AttestationSubmission(
            appId: caller.appId,
            keyId: try KeyId(base64: input.keyId),
            attestation: try Base64Field.decode(input.attestation, field: "attestation", maximumBytes: 64 * 1024),
            challenge: try WireFields.challenge(input.challenge),
            userId: caller.user,
            deviceId: try input.deviceId.map { text throws(EngineError) in try Identifier(text, field: "deviceId") },
            ip: caller.ip
        )
        submission.requestId = context.requestId
        let result = try await engine.attestations.attest(submission)
        return try JSONResponse.make(AppAttestationResponseBody(result), status: result.idempotent ? .ok : .created)
    }

    @Sendable func attestationRequired(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let caller = try identify(request, context: context)
        let app = try engine.apps.policy(for: caller.appId)
        return try JSONResponse.make(AttestationRequiredBody(attest: app.requiresAttestation(of: caller.user)), status: .ok)
    }

    @Sendable func validateDevice(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let caller = try identify(request, context: context)
        let input = try await body.decode(AppDeviceCheckRequestBody.self, from: request)
        let validation = try await engine.deviceCheck.validateSession(appId: caller.appId, userId: caller.user, deviceToken: input.deviceToken)
        return try JSONResponse.make(AppDeviceCheckResponseBody(validation), status: .ok)
    }

    /// Counts an attestation attempt's outcome for the app's rollout ramp (204; an app without a ramp counts nothing,
    /// and a user's outcome counts once a period), refusing a user's burst with 429.
    @Sendable func reportOutcome(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let caller = try identify(request, context: context)
        let report = try await body.decode(AttestationOutcomeReport.self, from: request)
        try await engine.attestationOutcomes.report(report, appId: caller.appId, user: caller.user.value)
        return Response(status: .noContent)
    }

    /// The app, user and address of the request, as the gateway and the route policy say.
    private func identify(_ request: Request, context: AttestGuardRequestContext) throws -> AppCaller {
        let caller = try GatewayCaller(headers: request.headers, authority: request.head.authority, trusted: trusted)
        let route = try policies.route(host: caller.host, method: request.method.rawValue, requestTarget: caller.requestTarget, apiKey: context.apiKey)
        guard let user = caller.user else {
            throw APIError(.forbidden, code: .userMissing, "this route needs the user the gateway authenticated")
        }
        return AppCaller(appId: route.appId, user: user, ip: caller.ip, requestTarget: caller.requestTarget)
    }
}

/// Who asks on an app-facing route.
struct AppCaller: Sendable {
    var appId: String
    var user: Identifier
    var ip: ClientIP?
    /// The client-facing request-target, as the app signs it.
    var requestTarget: String
}
