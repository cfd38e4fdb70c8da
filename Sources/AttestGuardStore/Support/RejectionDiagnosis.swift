import Foundation
import AttestVocabulary

/// Explains, after a transaction changed nothing, which condition failed. Both backends read the rows back
/// (outside the rolled-back transaction) and ask this one function, so they report identical codes.
package enum RejectionDiagnosis {
    /// Why `claim` could not consume `record`, or `nil` if it could have.
    package static func challenge(_ record: ChallengeRecord?, claim: ChallengeClaim, counter: Int64? = nil) -> StoreRejection? {
        guard let record else {
            return StoreRejection(.challengeNotFound, "no challenge with this id was issued (or it was purged)")
        }
        let challenge = record.challenge
        if record.consumedAt != nil {
            if let counter, record.consumedByKeyId == claim.keyId, record.consumedCounter == counter {
                return StoreRejection(
                    .assertionAlreadyAccepted,
                    "an assertion with counter \(counter) of this key was already accepted with this challenge"
                )
            }
            return StoreRejection(.challengeUsed, "the challenge was already consumed")
        }
        if challenge.appId != claim.appId {
            return StoreRejection(.challengeMismatch, "the challenge was issued for another app")
        }
        if challenge.purpose != claim.purpose {
            return StoreRejection(
                .challengeMismatch,
                "the challenge was issued for \(challenge.purpose.rawValue), not \(claim.purpose.rawValue)"
            )
        }
        if let userId = challenge.userId, !userId.hasSameBytes(as: claim.userId) {
            return StoreRejection(.challengeMismatch, "the challenge was issued to another user")
        }
        if let keyId = challenge.keyId, keyId != claim.keyId {
            return StoreRejection(.challengeMismatch, "the challenge was issued for another key")
        }
        if challenge.expiresAt <= claim.expiryThreshold {
            return StoreRejection(.challengeExpired, "the challenge expired at \(challenge.expiresAt)")
        }
        return nil
    }

    /// Why `key` could not advance to `counter`, or `nil` if it could have.
    package static func counter(_ key: KeyRecord?, counter: Int64) -> StoreRejection? {
        guard let key else { return StoreRejection(.keyNotFound, "the key is not registered") }
        switch key.status {
        case .revoked: return StoreRejection(.keyRevoked, "the key was revoked")
        case .superseded: return StoreRejection(.keySuperseded, "a newer key replaced this one on the same device")
        case .active: break
        }
        if key.counter >= counter {
            return StoreRejection(
                .counterNotIncreasing,
                "the assertion counter \(counter) is not greater than the stored counter \(key.counter)"
            )
        }
        return nil
    }

    /// Why registering `registration.key` found `existing` in its place.
    package static func existingKey(_ existing: KeyRecord, registration: KeyRegistration) -> KeyRegistrationOutcome {
        let key = registration.key
        if let rejection = existing.reregistrationRejection(
            userId: key.userId, attestationSHA256: key.attestationSHA256, claim: registration.claim
        ) {
            return .rejected(rejection)
        }
        return .alreadyRegistered(existing)
    }
}
