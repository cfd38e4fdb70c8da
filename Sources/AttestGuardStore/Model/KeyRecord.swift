public import Foundation
public import AttestVocabulary

/// An attested key as the registry keeps it: bound to one app, one user and one environment for life.
public struct KeyRecord: Sendable, Hashable {
    public var appId: String
    /// SHA-256 of the uncompressed P-256 public key (Apple's key identifier).
    public var keyId: Data
    public var userId: String
    public var deviceId: String?
    /// From the attestation's AAGUID.
    public var environment: AppAttestEnvironment
    /// The X9.63 (65-byte, uncompressed) P-256 public key.
    public var publicKey: Data
    /// The last accepted assertion counter (0 right after attestation).
    public var counter: Int64
    public var status: KeyStatus
    /// SHA-256 of the attestation object, for idempotent re-submission.
    public var attestationSHA256: Data
    public var osVersion: String?
    /// How the attested app was distributed, from iOS 27's extension map (`nil` before iOS 27).
    public var validationCategory: ValidationCategory?
    /// The attested app's bundle version, from iOS 27's extension map (`nil` before iOS 27).
    public var bundleVersion: String?
    public var attestedAt: Date
    public var lastAssertionAt: Date?
    public var statusChangedAt: Date?
    /// The key that replaced this one when it was superseded.
    public var supersededBy: Data?
    /// SHA-256 of the challenge that registered the key (`nil` for keys registered before schema 11).
    public var registrationChallengeSHA256: Data?
    /// When that challenge expired: an identical re-submission is idempotent only until then (plus the clock skew).
    public var registrationChallengeExpiresAt: Date?

    public init(
        appId: String,
        keyId: Data,
        userId: String,
        deviceId: String?,
        environment: AppAttestEnvironment,
        publicKey: Data,
        counter: Int64 = 0,
        status: KeyStatus = .active,
        attestationSHA256: Data,
        osVersion: String?,
        attestedAt: Date,
        lastAssertionAt: Date? = nil,
        statusChangedAt: Date? = nil,
        supersededBy: Data? = nil,
        registrationChallengeSHA256: Data? = nil,
        registrationChallengeExpiresAt: Date? = nil,
        validationCategory: ValidationCategory? = nil,
        bundleVersion: String? = nil
    ) {
        self.appId = appId
        self.keyId = keyId
        self.userId = userId
        self.deviceId = deviceId
        self.environment = environment
        self.publicKey = publicKey
        self.counter = counter
        self.status = status
        self.attestationSHA256 = attestationSHA256
        self.osVersion = osVersion
        self.attestedAt = attestedAt
        self.lastAssertionAt = lastAssertionAt
        self.statusChangedAt = statusChangedAt
        self.supersededBy = supersededBy
        self.registrationChallengeSHA256 = registrationChallengeSHA256
        self.registrationChallengeExpiresAt = registrationChallengeExpiresAt
        self.validationCategory = validationCategory
        self.bundleVersion = bundleVersion
    }
}

extension KeyRecord {
    /// Why an attestation of this already registered key by `userId`, with an object hashing to
    /// `attestationSHA256` and the challenge of `claim`, cannot register it again; `nil` when it is the very same
    /// submission (idempotent): the same user and object, the challenge that registered the key, before that
    /// challenge's expiry plus the clock skew, and the key still active. A captured object cannot replay for ever.
    public func reregistrationRejection(userId: String, attestationSHA256: Data, claim: ChallengeClaim) -> StoreRejection? {
        if !self.userId.hasSameBytes(as: userId) {
            return StoreRejection(.keyAlreadyRegistered, "this public key is registered to another user")
        }
        if self.attestationSHA256 != attestationSHA256 {
            return StoreRejection(.keyAlreadyRegistered, "this key was registered with another attestation")
        }
        switch status {
        case .revoked: return StoreRejection(.keyRevoked, "the key was revoked")
        case .superseded: return StoreRejection(.keySuperseded, "a newer key replaced this one on the same device")
        case .active: break
        }
        guard let registrationChallengeSHA256, registrationChallengeSHA256 == ChallengeClaim.digest(of: claim.challengeId) else {
            return StoreRejection(.challengeUsed, "the key was registered with another challenge")
        }
        guard let expiresAt = registrationChallengeExpiresAt, expiresAt > claim.expiryThreshold else {
            return StoreRejection(.challengeUsed, "the challenge that registered this key was consumed and has expired")
        }
        return nil
    }
}
