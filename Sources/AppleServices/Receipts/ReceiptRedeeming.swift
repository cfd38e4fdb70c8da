public import AttestVocabulary

/// Something that redeems App Attest receipts for fresher ones: Apple's endpoint in production
/// (``ReceiptRedemptionClient``), the simulator's fake Apple in tests and benchmarks.
public protocol ReceiptRedeeming: Sendable {
    /// Sends `receipt` (the stored receipt's raw bytes) to the redemption host of `environment`.
    func redeem(_ receipt: [UInt8], environment: AppAttestEnvironment) async -> ReceiptRedemptionOutcome
}
