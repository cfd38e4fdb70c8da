public import AttestVocabulary
import AppleReceipts

/// An assertion whose signature, RP ID and counter verified.
public struct VerifiedAssertion: Sendable, Hashable {
    /// The new counter, to store atomically only if still greater than the stored one.
    public let counter: UInt32
    /// The authenticator data as received.
    public let authenticatorData: AuthenticatorData
    /// The clientData the app signed; the caller checks the challenge (and request binding) in it.
    public let clientData: [UInt8]
    /// SHA-256 of the clientData.
    public let clientDataHash: [UInt8]
    /// iOS 27's extension map after the counter; `nil` when the device sent none.
    public let extensions: AppleAuthenticatorExtensions?
}

/// The outcome of verifying an assertion: the verified assertion, or the first check that failed.
public typealias AssertionVerdict = Verdict<VerifiedAssertion, VerificationError>

extension Verdict where Value == VerifiedAssertion {
    /// The verified assertion when valid.
    public var assertion: VerifiedAssertion? { value }
}
