public import AttestVocabulary
public import Foundation

/// Which due receipts one worker asks to lease: the `limit` receipts of active keys whose refresh is due at
/// `now` and that nobody holds (or whose holder's lease has expired), oldest due first.
public struct ReceiptLeaseRequest: Sendable, Hashable {
    /// Names the worker; only the owner can settle a lease.
    public var owner: String
    public var now: Date
    /// How long the worker may hold the receipts before others may take them over.
    public var duration: Duration
    public var limit: Int
    /// Only keys of these environments; `nil` for all.
    public var environments: Set<AppAttestEnvironment>?

    public init(owner: String, now: Date, duration: Duration, limit: Int, environments: Set<AppAttestEnvironment>? = nil) {
        self.owner = owner
        self.now = now
        self.duration = duration
        self.limit = limit
        self.environments = environments
    }

    public var expiresAt: Date { now.addingTimeInterval(duration.timeInterval) }
}

/// A receipt leased for redemption, with what verifying Apple's answer needs: the key's environment and
/// public key.
public struct ReceiptLease: Sendable, Hashable {
    public var receipt: ReceiptRecord
    /// `development` or `production`: which Apple host redeems it.
    public var environment: AppAttestEnvironment
    /// The key's X9.63 public key, which a new receipt must attest.
    public var publicKey: Data
    public var owner: String
    public var expiresAt: Date

    public init(receipt: ReceiptRecord, environment: AppAttestEnvironment, publicKey: Data, owner: String, expiresAt: Date) {
        self.receipt = receipt
        self.environment = environment
        self.publicKey = publicKey
        self.owner = owner
        self.expiresAt = expiresAt
    }

    public var appId: String { receipt.appId }
    public var keyId: Data { receipt.keyId }
}
