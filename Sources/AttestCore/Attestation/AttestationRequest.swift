public import AttestVocabulary
/// What the server expects of one attestation: the key id the app sent, the app, the environments it
/// accepts, and the client data the app passed to `attestKey`.
public struct AttestationRequest: Sendable, Hashable {
    /// The key id the app sent (32 bytes; SHA-256 of the public key).
    public var keyId: [UInt8]
    /// The app the key must belong to.
    public var app: AppIdentity
    /// The environments accepted; the aaguid must name one of them.
    public var allowedEnvironments: Set<AppAttestEnvironment>
    /// The challenge, or the clientDataHash itself.
    public var clientData: AttestationClientData

    public init(
        keyId: [UInt8],
        app: AppIdentity,
        allowedEnvironments: Set<AppAttestEnvironment> = [.production],
        clientData: AttestationClientData
    ) {
        self.keyId = keyId
        self.app = app
        self.allowedEnvironments = allowedEnvironments
        self.clientData = clientData
    }
}

/// How the server knows the clientDataHash the app passed to `attestKey`.
public enum AttestationClientData: Sendable, Hashable {
    /// The server's challenge bytes, turned into the clientDataHash by the app's convention.
    case challenge([UInt8], hashing: ChallengeHashing = .sha256)
    /// The clientDataHash itself (32 bytes), computed by the caller.
    case clientDataHash([UInt8])
}

/// How an app turns the server's challenge into the clientDataHash it passes to `attestKey`.
public enum ChallengeHashing: String, Sendable, Hashable, CaseIterable {
    /// `clientDataHash = SHA-256(challenge)`: AttestGuard's default.
    case sha256
    /// `clientDataHash = challenge`: the raw bytes, as in Apple's own sample code.
    case none
}
