public import Foundation

/// What a challenge is for: attesting a new key, or signing an assertion with an attested one. The server's
/// vocabulary has the same words (a test holds them equal).
public enum WireChallengePurpose: String, Codable, Sendable, Hashable, CaseIterable {
    case attestation
    case assertion
}

/// `POST /v1/challenges` request body: a backend or gateway asks for a challenge on the app's behalf.
public struct ChallengeRequestBody: Codable, Sendable, Hashable {
    public var appId: String
    public var purpose: WireChallengePurpose
    public var userId: String?
    /// base64 key id, binding an assertion challenge to the app's key.
    public var keyId: String?
    /// The client's address as the gateway saw it.
    public var ip: String?

    public init(appId: String, purpose: WireChallengePurpose, userId: String? = nil, keyId: String? = nil, ip: String? = nil) {
        self.appId = appId
        self.purpose = purpose
        self.userId = userId
        self.keyId = keyId
        self.ip = ip
    }
}

/// `POST /v1/challenges` response body: the challenge (base64url) and until when it is valid.
public struct ChallengeResponseBody: Codable, Sendable, Hashable {
    public var challenge: String
    public var purpose: WireChallengePurpose
    public var appId: String
    public var expiresAt: Date
    public var userId: String?
    public var keyId: String?

    public init(challenge: String, purpose: WireChallengePurpose, appId: String, expiresAt: Date, userId: String? = nil, keyId: String? = nil) {
        self.challenge = challenge
        self.purpose = purpose
        self.appId = appId
        self.expiresAt = expiresAt
        self.userId = userId
        self.keyId = keyId
    }
}
