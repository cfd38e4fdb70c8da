public import Foundation

// The app-facing routes (`/v1/app/*`, through the gateway): the app and the user come from the gateway's headers,
// never from these bodies.

/// `POST /v1/app/challenges` request body: what the challenge is for.
public struct AppChallengeRequestBody: Codable, Sendable, Hashable {
    public var purpose: WireChallengePurpose
    /// base64 key id, binding an assertion challenge to the app's key.
    public var keyId: String?

    public init(purpose: WireChallengePurpose, keyId: String? = nil) {
        self.purpose = purpose
        self.keyId = keyId
    }
}

/// `POST /v1/app/challenges` response body: the challenge and until when it is valid.
public struct AppChallengeResponseBody: Codable, Sendable, Hashable {
    public var challenge: String
    public var purpose: WireChallengePurpose
    public var expiresAt: Date

    public init(challenge: String, purpose: WireChallengePurpose, expiresAt: Date) {
        self.challenge = challenge
        self.purpose = purpose
        self.expiresAt = expiresAt
    }
}

/// `POST /v1/app/attestations` request body.
public struct AppAttestationRequestBody: Codable, Sendable, Hashable {
    public var keyId: String
    public var attestation: String
    public var challenge: String
    /// The app's vendor identifier, so that a new key on the same device supersedes the previous one.
    public var deviceId: String?

    public init(keyId: String, attestation: String, challenge: String, deviceId: String? = nil) {
        self.keyId = keyId
        self.attestation = attestation
        self.challenge = challenge
        self.deviceId = deviceId
    }
}

/// `POST /v1/app/attestations` response body: the key is registered. The verdict is the gateway's, not the app's.
public struct AppAttestationResponseBody: Codable, Sendable, Hashable {
    public var keyId: String
    /// True when the key was registered already (a retry).
    public var idempotent: Bool

    public init(keyId: String, idempotent: Bool) {
        self.keyId = keyId
        self.idempotent = idempotent
    }
}

/// `GET /v1/app/attestation-required` response body: advice only; the gateway's route policy enforces.
public struct AttestationRequiredBody: Codable, Sendable, Hashable {
    public var attest: Bool

    public init(attest: Bool) {
        self.attest = attest
    }
}

/// `POST /v1/app/devicecheck` request body: the device's DeviceCheck token.
public struct AppDeviceCheckRequestBody: Codable, Sendable, Hashable {
    /// The single-use `DCDevice` token, base64: sent to Apple only, never stored, logged or echoed.
    public var deviceToken: String

    public init(deviceToken: String) {
        self.deviceToken = deviceToken
    }
}

/// `POST /v1/app/devicecheck` response body: Apple accepted the device, and when AttestGuard recorded it for the user.
public struct AppDeviceCheckResponseBody: Codable, Sendable, Hashable {
    public var valid: Bool
    public var validatedAt: Date

    public init(valid: Bool, validatedAt: Date) {
        self.valid = valid
        self.validatedAt = validatedAt
    }
}
