import AttestCore
import AttestGuardEngine
import Foundation
import HTTPTypes

/// The protected request a gateway asks about, read from the forward-auth request's headers: what the gateway itself
/// says (the original method and request-target, the host, the trusted user, client address and body hash) and what
/// the app sent (its App Attest headers). Problems in the gateway's headers refuse with 403, never 401, so that no app
/// re-attests over a gateway's misconfiguration; problems in the app's headers refuse with 401.
struct ForwardAuthRequest: Sendable {
    /// The three App Attest headers, decoded.
    struct Credentials: Sendable {
        var keyId: KeyId
        var assertion: Data
        var clientData: Data
    }

    var method: String
    /// The host, the request-target (what the app signs as `path`), the user and the client's address.
    var caller: GatewayCaller
    var bodySha256: String?
    /// The app's App Attest headers, decoded on demand: an `open` route never reads them, so malformed ones refuse
    /// only a request that needs them.
    private let credentialHeaders: HTTPFields
    /// The app's `X-AppAttest-Status`, for scoring.
    var clientAttestStatus: String?

    /// - Parameter authority: The forward-auth request's `Host` (the client's, which the gateway passes on).
    init(headers: HTTPFields, authority: String?, trusted: ForwardAuthHeaders.Trusted) throws(ForwardAuthRefusal) {
        do throws(APIError) {
            method = try GatewayCaller.gatewayValue(headers, ForwardAuthHeaders.originalMethod, ForwardAuthHeaders.forwardedMethod, maximumLength: 16)
            guard method.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-") }) else {
                throw APIError.badRequest(.invalidField, "the original method is not an HTTP method")
            }
            caller = try GatewayCaller(headers: headers, authority: authority, trusted: trusted)
        } catch {
            throw .gateway(error.code, error.message)
        }
        bodySha256 = headers[trusted.bodySha256]
        if let bodySha256 {
            guard bodySha256.utf8.count == 43, Base64Text.decodeURL(bodySha256)?.count == 32 else {
                throw .gateway(.invalidField, "\(trusted.bodySha256.rawName) must be the base64url SHA-256 of the body (43 characters)")
            }
        }
        credentialHeaders = headers
        clientAttestStatus = headers[ForwardAuthHeaders.appAttestStatus].map { String($0.prefix(32)) }
    }

    /// The app's debug token (`X-AppAttest-Token` starting `agdt_`), when it sent one; any checking route reads it. A
    /// value of another shape is not one (a session token, read by `token` routes alone), so a route that does not
    /// read session tokens never refuses one.
    var debugToken: String? {
        guard let token = credentialHeaders[ForwardAuthHeaders.appAttestToken], DebugTokenSecret.isDebugToken(token) else { return nil }
        return token
    }

    /// The app's session token (`X-AppAttest-Token`), when it sent one; read only by `token` routes.
    /// - Throws: 401 `session_token_invalid` for a value longer than any token this server issues.
    func sessionToken() throws(ForwardAuthRefusal) -> String? {
        guard let token = credentialHeaders[ForwardAuthHeaders.appAttestToken] else { return nil }
        guard token.utf8.count <= Self.sessionTokenLimit else {
            throw ForwardAuthRefusal(
                precise: APIError(.unauthorized, code: .sessionTokenInvalid, "\(ForwardAuthHeaders.appAttestToken.rawName) is longer than a session token"),
                answer: .unauthorized
            )
        }
        return token
    }

    /// The longest `X-AppAttest-Token` read, in bytes: a session token is about 600.
    static let sessionTokenLimit = 2_048

    /// Whether the app sent any of its three App Attest headers.
    var carriesCredentials: Bool {
        [ForwardAuthHeaders.appAttestKeyId, ForwardAuthHeaders.appAttestAssertion, ForwardAuthHeaders.appAttestClientData]
            .contains { credentialHeaders[$0] != nil }
    }

    /// The app's three headers: none is no assertion; some but not all is 401 `missing_field`, malformed ones are 401
    /// with their code.
    func credentials() throws(ForwardAuthRefusal) -> Credentials? {
        try Self.credentials(in: credentialHeaders)
    }

    /// The app's three App Attest headers in `headers` (forward-auth's, or an app-facing request's): none is no
    /// assertion; some but not all is 401 `missing_field`, malformed ones are 401 with their code.
    static func credentials(in headers: HTTPFields) throws(ForwardAuthRefusal) -> Credentials? {
        let keyId = headers[ForwardAuthHeaders.appAttestKeyId]
        let assertion = headers[ForwardAuthHeaders.appAttestAssertion]
        let clientData = headers[ForwardAuthHeaders.appAttestClientData]
        guard keyId != nil || assertion != nil || clientData != nil else { return nil }
        guard let keyId, let assertion, let clientData else {
            let missing = [
                (ForwardAuthHeaders.appAttestKeyId, keyId), (ForwardAuthHeaders.appAttestAssertion, assertion),
                (ForwardAuthHeaders.appAttestClientData, clientData),
            ].filter { $0.1 == nil }.map(\.0.rawName)
            throw .app(.missingField, "the request lacks \(missing.joined(separator: " and ")): send all three App Attest headers")
        }
        do throws(EngineError) {
            guard clientData.utf8.count <= 8_192, let clientDataBytes = Base64Text.decodeURL(clientData) else {
                throw EngineError(.invalidInput, code: .malformedBase64, "\(ForwardAuthHeaders.appAttestClientData.rawName) is not base64url")
            }
            return Credentials(
                keyId: try KeyId(base64: keyId),
                assertion: try Base64Field.decode(assertion, field: ForwardAuthHeaders.appAttestAssertion.rawName, maximumBytes: 4_096),
                clientData: clientDataBytes
            )
        } catch {
            throw .app(error.code, error.message)
        }
    }
}
