public import AttestVocabulary

/// The outcome of verifying a receipt.
public typealias ReceiptVerdict = Verdict<Receipt, ReceiptError>

extension Verdict where Value == Receipt {
    /// The receipt when valid.
    public var receipt: Receipt? { value }
}
