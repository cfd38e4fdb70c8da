public import Foundation

/// Everything one successful attestation writes, in one transaction: the challenge it consumes, the new key,
/// its ATTEST receipt, and the superseding of the user's previous key on the same device.
public struct KeyRegistration: Sendable, Equatable {
    public var claim: ChallengeClaim
    public var key: KeyRecord
    public var receipt: ReceiptRecord

    public init(claim: ChallengeClaim, key: KeyRecord, receipt: ReceiptRecord) {
        self.claim = claim
        self.key = key
        self.receipt = receipt
    }
}

/// What registering a key did.
public enum KeyRegistrationOutcome: Sendable, Equatable {
    /// The key is new; `supersededKeyIds` lists the user's keys on the same device that it replaced.
    case registered(KeyRecord, supersededKeyIds: [Data])
    /// The very same attestation was already registered for this user: nothing changed.
    case alreadyRegistered(KeyRecord)
    case rejected(StoreRejection)
}
