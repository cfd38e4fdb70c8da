import AttestGuardEngine
import AttestGuardWire
import AttestVocabulary
import Foundation

extension AppChallengeResponseBody {
    /// The answer for an issued challenge.
    init(_ issued: IssuedChallenge) {
        self.init(challenge: issued.challenge, purpose: issued.purpose.wire, expiresAt: issued.expiresAt)
    }
}

extension AppAttestationResponseBody {
    /// The answer for a registered key.
    init(_ result: AttestationResult) {
        self.init(keyId: result.key.keyId.base64, idempotent: result.idempotent)
    }
}

extension AppDeviceCheckResponseBody {
    /// The answer for a device Apple accepted.
    init(_ validation: DeviceCheckValidation) {
        self.init(valid: true, validatedAt: validation.validatedAt)
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
