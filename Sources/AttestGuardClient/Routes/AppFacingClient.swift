import AttestGuardWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Calls AttestGuard's app-facing routes through the app's gateway (`<gateway>/challenges`, ...), with the app's own
/// authentication added by `authorize`: the gateway takes the user from it, never from these bodies.
struct AppFacingClient: Sendable {
    let gateway: URL
    let transport: any HTTPTransport
    let authorize: @Sendable (inout URLRequest) async throws -> Void

    /// A challenge for an attestation, or for an assertion by `keyId`.
    func challenge(purpose: WireChallengePurpose, keyId: String?) async throws -> IssuedChallenge {
        let answer = try await call(.challenges, method: "POST", body: AppChallengeRequestBody(purpose: purpose, keyId: keyId))
        let body = try decode(AppChallengeResponseBody.self, from: answer, route: .challenges)
        guard let bytes = Base64Text.decodeURL(body.challenge), !bytes.isEmpty else {
            throw AttestGuardClientError(.unexpectedResponse, "challenges answered a challenge that is not base64url")
        }
        return IssuedChallenge(text: body.challenge, bytes: bytes, expiresAt: body.expiresAt)
    }

    /// Registers an attested key. AttestGuard answers an identical resubmission as idempotent, so a lost answer
    /// may be retried with the same object and challenge.
    func registerAttestation(keyId: String, attestation: Data, challenge: IssuedChallenge, deviceId: String?) async throws {
        let body = AppAttestationRequestBody(
            keyId: keyId, attestation: Base64Text.encode(attestation), challenge: challenge.text, deviceId: deviceId
        )
        _ = try await call(.attestations, method: "POST", body: body)
    }

    /// Whether AttestGuard advises this user to attest now (the rollout); the gateway's route policy enforces.
    func attestationRequired() async throws -> Bool {
        let answer = try await call(AppFacingRoute.attestationRequired, method: "GET", body: Optional<AppDeviceCheckRequestBody>.none)
        return try decode(AttestationRequiredBody.self, from: answer, route: .attestationRequired).attest
    }

    /// Has AttestGuard validate a DeviceCheck token with Apple for this user's device.
    func validateDevice(token: Data) async throws {
        _ = try await call(.deviceCheck, method: "POST", body: AppDeviceCheckRequestBody(deviceToken: Base64Text.encode(token)))
    }

    /// Reports how an attestation attempt went on the device, for the server's rollout ramp.
    func reportOutcome(_ report: AttestationOutcomeReport) async throws {
        _ = try await call(.attestationOutcomes, method: "POST", body: report)
    }

    /// A session token for the key that signs the exchange: `sign` adds the assertion headers to the request (an
    /// empty-bodied `POST <gateway>/session-tokens`), which AttestGuard verifies as it would any signed request.
    func sessionToken(signedBy sign: (URLRequest) async throws -> URLRequest) async throws -> SessionTokenResponseBody {
        let request = try await sign(try await prepared(.sessionTokens, method: "POST", body: Optional<AppDeviceCheckRequestBody>.none))
        return try decode(SessionTokenResponseBody.self, from: try await perform(request, route: .sessionTokens), route: .sessionTokens)
    }

    /// One call: 2xx gives the body, anything else is ``AttestGuardClientError/Code/refused`` with the answer.
    private func call(_ route: AppFacingRoute, method: String, body: (some Encodable)?) async throws -> Data {
        try await perform(try await prepared(route, method: method, body: body), route: route)
    }

    /// The request of one call, with the app's authentication.
    private func prepared(_ route: AppFacingRoute, method: String, body: (some Encodable)?) async throws -> URLRequest {
        var request = URLRequest(url: gateway.appendingPathComponent(route.pathComponent))
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = try WireJSON.encoder().encode(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        try await authorize(&request)
        return request
    }

    /// Sends one call's request: 2xx gives the body, anything else is ``AttestGuardClientError/Code/refused``.
    private func perform(_ request: URLRequest, route: AppFacingRoute) async throws -> Data {
        let method = request.httpMethod ?? "GET"
        let data: Data
        let response: HTTPURLResponse
        do {
            (data, response) = try await transport.send(request)
        } catch {
            throw AttestGuardClientError(.transport, "\(method) \(route) got no response", underlying: error)
        }
        guard (200..<300).contains(response.statusCode) else {
            let answer = ServerAnswer(response: response, body: data)
            throw AttestGuardClientError(.refused, "\(method) \(route): \(answer)", answer: answer)
        }
        return data
    }

    private func decode<Body: Decodable>(_ type: Body.Type, from data: Data, route: AppFacingRoute) throws -> Body {
        do {
            return try WireJSON.decoder().decode(type, from: data)
        } catch {
            throw AttestGuardClientError(.unexpectedResponse, "\(route) answered a body the client cannot read", underlying: error)
        }
    }
}

/// A challenge as issued: the text to send back and sign, its bytes, and until when it is valid.
struct IssuedChallenge: Sendable, Hashable {
    var text: String
    var bytes: Data
    var expiresAt: Date
}
