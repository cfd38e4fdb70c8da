public import Foundation
import AttestGuardStore
/// An attestation as the caller submits it (already decoded from the wire).
public struct AttestationSubmission: Sendable, Hashable {
    public var appId: String
    public var keyId: KeyId
    public var attestation: Data
    /// The decoded challenge bytes the app received.
    public var challenge: Data
    /// The caller's authenticated user: the key belongs to this user for life.
    public var userId: Identifier
    public var deviceId: Identifier?
    /// The client's address as the gateway saw it: attestations, new keys and failures count per address too.
    public var ip: ClientIP?
    /// The HTTP request's id, logged with the verdict (a label names the decision by it).
    public var requestId: String?

    public init(
        appId: String, keyId: KeyId, attestation: Data, challenge: Data, userId: Identifier, deviceId: Identifier? = nil, ip: ClientIP? = nil
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

/// A registered key as the attestation left it.
public struct AttestationResult: Sendable, Hashable {
    public var key: AttestedKey
    public var receipt: KeyReceipt?
    /// True when this exact attestation had already been registered: nothing changed.
    public var idempotent: Bool
    public var supersededKeyIds: [Data]
    public var verdict: RiskVerdict
}
