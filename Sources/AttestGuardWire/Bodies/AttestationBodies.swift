/// `POST /v1/attestations` request body: the app's attestation object for a challenge, relayed by its backend.
public struct AttestationRequestBody: Codable, Sendable, Hashable {
    public var appId: String
    /// base64 key id.
    public var keyId: String
    /// base64 attestation object.
    public var attestation: String
    /// The challenge (base64url) as the server issued it.
    public var challenge: String
    public var userId: String
    /// The app's vendor identifier, so that a new key on the same device supersedes the previous one.
    public var deviceId: String?
    /// The client's address as the gateway saw it.
    public var ip: String?

    public init(
        appId: String, keyId: String, attestation: String, challenge: String, userId: String, deviceId: String? = nil, ip: String? = nil
    ) {
        self.appId = appId
        self.keyId = keyId
        self.attestation = attestation
        self.challenge = challenge
        self.userId = userId
        self.deviceId = deviceId
        self.ip = ip
    }
}
