/// The kind of an App Attest receipt (field 6): the one inside an attestation, or one returned by a refresh.
///
/// Open, like the field it reads: a receipt may carry a type this build does not know, and it keeps that text.
public struct ReceiptType: Sendable, Hashable, CustomStringConvertible {
    /// The raw text of field 6.
    public let rawValue: String

    /// The type a receipt's field 6 names, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The receipt embedded in an attestation object.
    public static let attest = ReceiptType(rawValue: "ATTEST")
    /// A receipt returned by Apple's attestationData endpoint.
    public static let receipt = ReceiptType(rawValue: "RECEIPT")

    public var description: String { rawValue }
}
