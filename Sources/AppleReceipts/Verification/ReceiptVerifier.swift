public import Foundation
public import X509
import AttestGuardWire

/// Verifies App Attest receipts: the CMS (PKCS #7) signature, the signer's chain to a pinned root at an instant,
/// and the fields against what the caller expects.
///
/// Checks run in this order and the first failure is returned: envelope, payload, CMS signature and
/// chain, App ID, attested key, type, client hash (ATTEST only), creation time not in the future
/// (beyond the clock-skew tolerance), maximum age, expiration.
public struct ReceiptVerifier: Sendable {
    /// The roots a receipt signer must chain to (Apple Root CA - G3 unless replaced).
    public let trustRoots: [Certificate]
    /// How far certificate validity and receipt times may miss "now", in seconds.
    public let clockSkewTolerance: TimeInterval
    private let rootStore: CertificateStore
    /// Chains already validated, shared by copies of this verifier.
    private let chainCache: VerifiedChainCache<ReceiptSignatureCheck.SignerChain>

    public init(trustRoots: [Certificate] = [ReceiptTrustAnchor.appleRootCAG3], clockSkewTolerance: TimeInterval = 120) {
        self.trustRoots = trustRoots
        self.clockSkewTolerance = clockSkewTolerance
        self.rootStore = CertificateStore(trustRoots)
        self.chainCache = VerifiedChainCache(clockSkewTolerance: clockSkewTolerance)
    }

    /// Verifies one receipt (DER or BER bytes) at the instant `now`.
    public func verify(_ receipt: [UInt8], expecting expectation: ReceiptExpectation, at now: Date) async -> ReceiptVerdict {
        let envelope: ReceiptEnvelope
        let parsed: Receipt
        do {
            envelope = try ReceiptEnvelope(receipt)
            parsed = try Receipt(payload: envelope.content)
        } catch {
            return .invalid(error)
        }
        let signatureCheck = ReceiptSignatureCheck(rootStore: rootStore, clockSkewTolerance: clockSkewTolerance, chainCache: chainCache)
        if let failure = await signatureCheck.failure(of: envelope, at: now) {
            return .invalid(failure)
        }
        if let failure = fieldFailure(of: parsed, expecting: expectation, at: now) {
            return .invalid(failure)
        }
        return .valid(parsed)
    }

    /// Compares the decoded fields with the expectation; `nil` when all match.
    func fieldFailure(of receipt: Receipt, expecting expectation: ReceiptExpectation, at now: Date) -> ReceiptError? {
        if receipt.appId != expectation.appId {
            return ReceiptError(.appIdMismatch, "receipt is for \"\(receipt.appId)\", expected \"\(expectation.appId)\"")
        }
        if let key = expectation.publicKeyX963, !constantTimeEqual(key, receipt.attestedPublicKeyX963) {
            return ReceiptError(.publicKeyMismatch, "receipt attests another public key")
        }
        if let type = expectation.type, receipt.type != type {
            return ReceiptError(.typeMismatch, "receipt type is \(receipt.type), expected \(type)")
        }
        if receipt.type == .attest, let hash = expectation.attestClientHash,
            !constantTimeEqual(hash, receipt.clientHash ?? [])
        {
            return ReceiptError(.clientHashMismatch, "field 4 differs from the attestation's clientDataHash")
        }
        let created = receipt.creationTime
        if created > now.addingTimeInterval(clockSkewTolerance) {
            return ReceiptError(
                .createdInFuture,
                "created at \(RFC3339.format(created)), after \(RFC3339.format(now)) plus \(Int(clockSkewTolerance)) s skew"
            )
        }
        if let maximumAge = expectation.maximumAge, now.timeIntervalSince(created) > maximumAge + clockSkewTolerance {
            return ReceiptError(
                .tooOld,
                "created at \(RFC3339.format(created)), more than \(Int(maximumAge)) s before \(RFC3339.format(now))"
            )
        }
        if let expiration = receipt.expirationTime, expiration < now.addingTimeInterval(-clockSkewTolerance) {
            return ReceiptError(.expired, "expired at \(RFC3339.format(expiration))")
        }
        return nil
    }
}

/// Compares two byte strings in time that depends only on their lengths.
package func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
    return difference == 0
}
