import AttestGuardEngine
import AttestGuardWire

extension ChallengeResponseBody {
    /// The answer for an issued challenge.
    init(_ issued: IssuedChallenge) {
        self.init(
            challenge: issued.challenge, purpose: issued.purpose.wire, appId: issued.appId, expiresAt: issued.expiresAt,
            userId: issued.userId, keyId: issued.keyId?.base64EncodedString()
        )
    }
}
