public import Foundation
public import AttestVocabulary

/// What a receipt must say to be accepted for one key of one app.
public struct ReceiptExpectation: Sendable, Hashable {
    /// The App ID (`TEAMID.bundle.id`) field 2 must equal.
    public var appId: String
    /// The P-256 key (uncompressed X9.62, 65 bytes) field 3 must hold; `nil` skips the check.
    public var publicKeyX963: [UInt8]?
    /// The receipt type field 6 must have; `nil` accepts either.
    public var type: ReceiptType?
    /// The clientDataHash field 4 must equal on an ATTEST receipt; never compared on RECEIPT types,
    /// where Apple has been seen to mangle it.
    public var attestClientHash: [UInt8]?
    /// The largest age of the receipt's creation time accepted, for freshly fetched receipts.
    public var maximumAge: TimeInterval?

    public init(
        appId: String,
        publicKeyX963: [UInt8]? = nil,
        type: ReceiptType? = nil,
        attestClientHash: [UInt8]? = nil,
        maximumAge: TimeInterval? = nil
    ) {
        self.appId = appId
        self.publicKeyX963 = publicKeyX963
        self.type = type
        self.attestClientHash = attestClientHash
        self.maximumAge = maximumAge
    }
}
