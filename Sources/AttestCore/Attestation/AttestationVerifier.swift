public import Foundation
public import X509
public import AppleReceipts
import Crypto
public import AttestVocabulary

/// Verifies App Attest attestation objects: Apple's nine steps in order, then the embedded receipt.
///
/// 1. x5c chains to a pinned root at the instant (within the clock-skew tolerance); the intermediate's link to its
/// root is verified once per intermediate and remembered while both are valid, the credential certificate every time;
/// 2. clientDataHash from the request; 3. nonce = SHA-256(authData ‖ clientDataHash);
/// 4. the leaf's nonce extension equals it; 5. SHA-256(leaf public key) equals the key id;
/// 6. RP ID hash equals SHA-256(App ID); 7. sign counter is 0; 8. aaguid names an allowed
/// environment; 9. credential id equals the key id. Then the ATTEST receipt must verify for the
/// same app, key and clientDataHash. The first failure is returned, with its own code.
public struct AttestationVerifier: Sendable {
    /// The roots credential certificates must chain to (Apple's App Attestation root unless replaced).
    public let trustRoots: [Certificate]
    /// Verifies the embedded ATTEST receipt, with the same clock-skew tolerance.
    public let receiptVerifier: ReceiptVerifier
    /// How far certificate validity and receipt times may miss "now", in seconds.
    public let clockSkewTolerance: TimeInterval
    /// Step 1, with the intermediates already verified against a root; shared by copies of this verifier.
    private let chainCheck: CredentialChainCheck

    public init(
        trustRoots: [Certificate] = [AppAttestTrustAnchor.appleAppAttestationRoot],
        receiptTrustRoots: [Certificate] = [ReceiptTrustAnchor.appleRootCAG3],
        clockSkewTolerance: TimeInterval = 120
    ) {
        self.init(
            trustRoots: trustRoots,
            receiptTrustRoots: receiptTrustRoots,
            clockSkewTolerance: clockSkewTolerance,
            chainValidationCounter: nil
        )
    }

    /// A verifier that counts how it validates credential certificate chains in `chainValidationCounter`.
    package init(
        trustRoots: [Certificate],
        receiptTrustRoots: [Certificate],
        clockSkewTolerance: TimeInterval,
        chainValidationCounter: ChainValidationCounter?
    ) {
        self.trustRoots = trustRoots
        self.clockSkewTolerance = clockSkewTolerance
        self.receiptVerifier = ReceiptVerifier(trustRoots: receiptTrustRoots, clockSkewTolerance: clockSkewTolerance)
        self.chainCheck = CredentialChainCheck(
            trustRoots: trustRoots,
            clockSkewTolerance: clockSkewTolerance,
            counter: chainValidationCounter
        )
    }

    /// Verifies an attestation object (CBOR bytes) against a request at the instant `now`.
    public func verify(_ attestationObject: [UInt8], request: AttestationRequest, at now: Date) async -> AttestationVerdict {
        do {
            return .valid(try await verifyOrThrow(attestationObject, request: request, at: now))
        } catch let error as VerificationError {
            return .invalid(error)
        } catch {
            return .invalid(VerificationError(.malformedAttestation, "\(error)"))
        }
    }

    private func verifyOrThrow(_ bytes: [UInt8], request: AttestationRequest, at now: Date) async throws -> VerifiedAttestation {
        guard request.keyId.count == 32 else {
            throw VerificationError(.malformedKeyId, "key id is \(request.keyId.count) bytes, expected 32")
        }
        let object = try AttestationObject(cbor: bytes)
        let certificates = try object.certificates.enumerated().map { index, der in
            do {
                return try Certificate(derEncoded: der)
            } catch {
                throw VerificationError(.malformedCertificate, "x5c[\(index)] does not parse: \(error)")
            }
        }
        let leaf = certificates[0]
        guard let publicKey = P256.Signing.PublicKey(leaf.publicKey) else {
            throw VerificationError(.malformedPublicKey, "the credential certificate does not hold a P-256 key")
        }
        let authenticatorData = try AuthenticatorData(object.authenticatorData)
        let credential = try AttestedCredentialData(authenticatorData.remainder)

        // 1. The chain leads to a pinned root at "now".
        try await chainCheck.validate(certificates, der: object.certificates, at: now)
        // 2. The clientDataHash.
        let clientDataHash = try Self.clientDataHash(for: request.clientData)
        // 3. nonce = SHA-256(authData ‖ clientDataHash).
        let nonce = Array(SHA256.hash(data: object.authenticatorData + clientDataHash))
        // 4. The leaf's nonce extension holds the same nonce.
        guard let nonceExtension = leaf.extensions[oid: AppleCertificateExtensions.nonce] else {
            throw VerificationError(.malformedNonceExtension, "the credential certificate has no nonce extension")
        }
        let certifiedNonce = try AppleCertificateExtensions.nonce(fromExtensionValue: nonceExtension.value)
        guard constantTimeEqual(certifiedNonce, nonce) else {
            throw VerificationError(.nonceMismatch, "certificate nonce \(Hex.encode(certifiedNonce)) differs from SHA-256(authData ‖ clientDataHash) \(Hex.encode(nonce))")
        }
        // 5. SHA-256 of the public key equals the key id.
        let publicKeyX963 = Array(publicKey.x963Representation)
        let publicKeyHash = Array(SHA256.hash(data: publicKeyX963))
        guard publicKeyHash == request.keyId else {
            throw VerificationError(.keyIdMismatch, "SHA-256 of the certified key is \(Hex.encode(publicKeyHash)), key id is \(Hex.encode(request.keyId))")
        }
        // 6. The RP ID hash is SHA-256 of the App ID.
        guard authenticatorData.rpIdHash.elementsEqual(request.app.rpIdHash) else {
            throw VerificationError(.rpIdMismatch, "RP ID hash \(Hex.encode(authenticatorData.rpIdHash)) is not SHA-256(\"\(request.app.appId)\")")
        }
        // 7. The counter is zero.
        guard authenticatorData.signCount == 0 else {
            throw VerificationError(.counterNotZero, "sign counter is \(authenticatorData.signCount)")
        }
        // 8. The aaguid names an accepted environment.
        guard let environment = AppAttestEnvironment(aaguid: credential.aaguid) else {
            throw VerificationError(.aaguidMismatch, "aaguid \(Hex.encode(credential.aaguid)) names no App Attest environment")
        }
        guard request.allowedEnvironments.contains(environment) else {
            let allowed = request.allowedEnvironments.map(\.rawValue).sorted().joined(separator: ", ")
            throw VerificationError(.aaguidMismatch, "key was attested in \(environment), accepted: \(allowed.isEmpty ? "none" : allowed)")
        }
        // 9. The credential id is the key id.
        guard credential.credentialId == request.keyId else {
            throw VerificationError(.credentialIdMismatch, "credential id \(Hex.encode(credential.credentialId)) differs from the key id")
        }
        // The ATTEST receipt speaks for the same app, key and clientDataHash.
        let expectation = ReceiptExpectation(
            appId: request.app.appId,
            publicKeyX963: publicKeyX963,
            type: .attest,
            attestClientHash: clientDataHash
        )
        let receipt: Receipt
        switch await receiptVerifier.verify(object.receipt, expecting: expectation, at: now) {
        case .valid(let verified):
            receipt = verified
        case .invalid(let failure):
            throw VerificationError(.receiptInvalid, failure.description, receiptError: failure)
        }
        return VerifiedAttestation(
            keyId: request.keyId,
            publicKey: publicKey,
            environment: environment,
            clientDataHash: clientDataHash,
            receiptBytes: object.receipt,
            receipt: receipt,
            authenticatorData: authenticatorData,
            credential: credential,
            certificateInformation: CertificateInformation(
                appInfo: CertificateInformation.fields(fromExtensionValue: leaf.extensions[oid: AppleCertificateExtensions.appInfo]?.value),
                osInfo: CertificateInformation.fields(fromExtensionValue: leaf.extensions[oid: AppleCertificateExtensions.osInfo]?.value),
                keyAccessControlPolicy: KeyAccessControlExtension.policy(fromExtensionValue: leaf.extensions[oid: KeyAccessControlExtension.oid]?.value)
            ),
            certificates: object.certificates
        )
    }

    /// The clientDataHash the app passed to `attestKey`, by the request's convention.
    static func clientDataHash(for clientData: AttestationClientData) throws(VerificationError) -> [UInt8] {
        switch clientData {
        case .challenge(let challenge, .sha256):
            return Array(SHA256.hash(data: challenge))
        case .challenge(let challenge, .none):
            return challenge
        case .clientDataHash(let hash):
            guard hash.count == 32 else {
                throw VerificationError(.malformedClientDataHash, "clientDataHash is \(hash.count) bytes, expected 32")
            }
            return hash
        }
    }
}
