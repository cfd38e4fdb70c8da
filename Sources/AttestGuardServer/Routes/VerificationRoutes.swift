import AttestVocabulary
import AttestCore
import AppleReceipts
import AttestGuardEngine
import Foundation
import Hummingbird
import HTTPTypes
import NIOCore
import AttestGuardRuntime
import AttestGuardWire

/// The `verify`-scoped routes: challenges, attestations, assertions; reading a key (`verify` or `analyst`); and
/// revocation (`admin`).
struct VerificationRoutes {
    let engine: Engine
    let body: JSONBody

    func register(on router: Router<AttestGuardRequestContext>, keys: APIKeyRing) {
        let verify = router.group("v1").add(middleware: APIKeyMiddleware(ring: keys, scope: .verify))
        verify.post("challenges", use: issueChallenge)
        verify.post("attestations", use: attest)
        verify.post("assertions", use: assert)
        router.group("v1").add(middleware: APIKeyMiddleware(ring: keys, scopes: [.verify, .analyst])).get("apps/:appId/keys/:keyId", use: key)
        router.group("v1").add(middleware: APIKeyMiddleware(ring: keys, scope: .admin))
            .post("apps/:appId/keys/:keyId/revoke", use: revoke)
    }

    @Sendable func issueChallenge(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let input = try await body.decode(ChallengeRequestBody.self, from: request)
        try context.requireAccess(to: input.appId)
        let keyId = try input.keyId.map { text throws(EngineError) in try KeyId(base64: text) }
        let userId = try input.userId.map { text throws(EngineError) in try Identifier(text, field: "userId") }
        let issued = try await engine.challenges.issue(
            ChallengeRequest(
                appId: input.appId, purpose: ChallengePurpose(input.purpose), userId: userId, keyId: keyId,
                ip: try ClientIP.field(input.ip, named: "ip")
            ),
            apiKeyName: context.apiKey?.name
        )
        return try JSONResponse.make(ChallengeResponseBody(issued), status: .created)
    }

    @Sendable func attest(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let input = try await body.decode(AttestationRequestBody.self, from: request)
        try context.requireAccess(to: input.appId)
        var submission = AttestationSubmission(
            appId: input.appId,
            keyId: try KeyId(base64: input.keyId),
            attestation: try Base64Field.decode(input.attestation, field: "attestation", maximumBytes: 64 * 1024),
            challenge: try WireFields.challenge(input.challenge),
            userId: try Identifier(input.userId, field: "userId"),
            deviceId: try input.deviceId.map { text throws(EngineError) in try Identifier(text, field: "deviceId") },
            ip: try ClientIP.field(input.ip, named: "ip")
        )
        submission.requestId = context.requestId
        let result = try await engine.attestations.attest(submission)
        return try JSONResponse.make(AttestationResponseBody(result), status: result.idempotent ? .ok : .created)
    }

    @Sendable func assert(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let input = try await body.decode(AssertionRequestBody.self, from: request)
        try context.requireAccess(to: input.appId)
        let assertedRequest = try AssertedRequest(input.request)
        try WireFields.checkRequest(assertedRequest)
        guard input.clientData.utf8.count <= 8_192, let clientData = Base64Text.decodeURL(input.clientData) else {
            throw APIError.badRequest(.malformedBase64, "clientData is not base64url")
        }
        var submission = AssertionSubmission(
            appId: input.appId,
            keyId: try KeyId(base64: input.keyId),
            assertion: try Base64Field.decode(input.assertion, field: "assertion", maximumBytes: 4_096),
            clientData: clientData,
            userId: try Identifier(input.userId, field: "userId"),
            request: assertedRequest
        )
        submission.requestId = context.requestId
        let result = try await engine.assertions.assert(submission)
        return JSONResponse.make(json: AssertionResponseJSON.bytes(result), status: .ok)
    }

    @Sendable func key(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let (appId, keyId) = try Self.keyPath(context)
        try context.requireAccess(to: appId)
        let details = try await engine.keys.details(appId: appId, keyId: keyId)
        return try JSONResponse.make(KeyBody(details.key, receipt: details.receipt), status: .ok)
    }

    @Sendable func revoke(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let (appId, keyId) = try Self.keyPath(context)
        try context.requireAccess(to: appId)
        let details = try await engine.keys.revoke(appId: appId, keyId: keyId, by: context.apiKey?.name ?? "-")
        return try JSONResponse.make(KeyBody(details.key, receipt: details.receipt), status: .ok)
    }

    static func keyPath(_ context: AttestGuardRequestContext) throws -> (String, Data) {
        guard let appId = context.parameters.get("appId"), let rawKeyId = context.parameters.get("keyId") else {
            throw APIError.badRequest(.missingField, "the path needs an app id and a key id")
        }
        let keyId = try KeyId(pathText: rawKeyId.removingPercentEncoding ?? rawKeyId)
        return (appId.removingPercentEncoding ?? appId, keyId.bytes)
    }
}
