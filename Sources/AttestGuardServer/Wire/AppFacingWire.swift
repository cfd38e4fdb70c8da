import AttestGuardEngine
import AttestGuardWire
import AttestVocabulary
import Foundation

/// `POST /v1/app/challenges` request body: what to sign. The app and user come from the gateway.
struct AppChallengeRequestBody: Decodable {
    var purpose: ChallengePurpose
    /// base64 key id, binding an assertion challenge to the app's key.
    var keyId: String?
}

/// `POST /v1/app/challenges` response body: the challenge and until when it is valid.
struct AppChallengeResponseBody: Encodable {
    var challenge: String
    var purpose: ChallengePurpose
    var expiresAt: Date

    init(_ issued: IssuedChallenge) {
        challenge = issued.challenge
        purpose = issued.purpose
        expiresAt = issued.expiresAt
    }
}

/// `POST /v1/app/attestations` request body. The app and user come from the gateway.
struct AppAttestationRequestBody: Decodable {
    var keyId: String
    var attestation: String
    var challenge: String
    /// The app's vendor identifier, so that a new key on the same device supersedes the previous one.
    var deviceId: String?
}

/// `POST /v1/app/attestations` response body: the key is registered. The verdict is the gateway's, not the app's.
struct AppAttestationResponseBody: Encodable {
    var keyId: String
    var idempotent: Bool

    init(_ result: AttestationResult) {
        keyId = result.key.keyId.base64
        idempotent = result.idempotent
    }
}

/// `GET /v1/app/attestation-required` response body: advice only; the gateway's route policy enforces.
struct AttestationRequiredBody: Encodable {
    var attest: Bool
}

/// `POST /v1/app/devicecheck` request body: the device's DeviceCheck token. The app and user come from the gateway.
struct AppDeviceCheckRequestBody: Decodable {
    /// The single-use `DCDevice` token, base64: sent to Apple only, never stored, logged or echoed.
    var deviceToken: String
}

/// `POST /v1/app/devicecheck` response body: Apple accepted the device, and when AttestGuard recorded it for the user.
struct AppDeviceCheckResponseBody: Encodable {
    var valid: Bool
    var validatedAt: Date

    init(_ validation: DeviceCheckValidation) {
        valid = true
        validatedAt = validation.validatedAt
    }
}

/// An app-facing request body: it may carry the identity fields (`appId`, `userId`, `ip`) and AttestGuard does not read
/// them (contract: the gateway says who asks).
protocol AppFacingBody: IgnoredMembers {}

extension AppFacingBody {
    static var ignoredMembers: Set<String> { ["appId", "userId", "ip"] }
}

extension AppChallengeRequestBody: AppFacingBody {}
extension AppAttestationRequestBody: AppFacingBody {}
extension AppDeviceCheckRequestBody: AppFacingBody {}
extension AttestationOutcomeReport: AppFacingBody {}
