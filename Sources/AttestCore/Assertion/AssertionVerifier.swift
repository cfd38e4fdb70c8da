public import Crypto
import AppleReceipts

/// Verifies App Attest assertions against a stored public key and counter.
///
/// 1. clientDataHash = SHA-256(clientData); 2. nonce = SHA-256(authenticatorData ‖ clientDataHash);
/// 3. the ECDSA P-256 signature verifies over the nonce as the message (the digest is SHA-256(nonce));
/// 4. the RP ID hash is SHA-256(App ID); 5. the counter is greater than the previous one; then the bytes after the
/// counter are read as iOS 27's extension map (``AppleAuthenticatorExtensions``), after the checks the signature
/// vouches for, so that only a device's own bytes can be refused as `malformed_authenticator_extensions`.
/// Step 6, the challenge inside clientData, is the caller's: ``VerifiedAssertion`` returns the clientData.
/// Stateless and cheap: one CBOR decode (two with the map), three SHA-256 and one P-256 verification.
public struct AssertionVerifier: Sendable {
    public init() {}

    /// Verifies an assertion object (CBOR bytes).
    /// - Parameters:
    ///   - assertion: The CBOR assertion object from the app.
    ///   - publicKey: The key registered at attestation.
    ///   - app: The app the key belongs to.
    ///   - clientData: The exact bytes the app signed.
    ///   - previousCounter: The last counter accepted for the key (0 before the first assertion).
    /// - Returns: The verified assertion, or the first check that failed.
    public func verify(
        _ assertion: [UInt8],
        publicKey: P256.Signing.PublicKey,
        app: AppIdentity,
        clientData: [UInt8],
        previousCounter: UInt32
    ) -> AssertionVerdict {
        do throws(VerificationError) {
            let object = try AssertionObject(cbor: assertion)
            let authenticatorData = try AuthenticatorData(object.authenticatorData)
            let signature: P256.Signing.ECDSASignature
            do {
                signature = try P256.Signing.ECDSASignature(derRepresentation: object.signature)
            } catch {
                throw VerificationError(.malformedSignature, "signature is not a DER ECDSA signature")
            }
            // 1-2. clientDataHash and nonce.
            let clientDataHash = SHA256.hash(data: clientData)
            var nonceHasher = SHA256()
            nonceHasher.update(data: object.authenticatorData)
            clientDataHash.withUnsafeBytes { nonceHasher.update(bufferPointer: $0) }
            let nonce = nonceHasher.finalize()
            // 3. The signature covers the nonce as a message: ECDSA with SHA-256 over the nonce's bytes, hashed from
            // the digest's own storage.
            let signedDigest = nonce.withUnsafeBytes { SHA256.hash(data: $0) }
            guard publicKey.isValidSignature(signature, for: signedDigest) else {
                throw VerificationError(.signatureInvalid, "signature does not verify over the nonce with the registered key")
            }
            // 4. The RP ID hash.
            guard authenticatorData.rpIdHash.elementsEqual(app.rpIdHash) else {
                throw VerificationError(.rpIdMismatch, "RP ID hash \(Hex.encode(authenticatorData.rpIdHash)) is not SHA-256(\"\(app.appId)\")")
            }
            // 5. The counter strictly increases.
            guard authenticatorData.signCount > previousCounter else {
                throw VerificationError(.counterNotIncreasing, "counter \(authenticatorData.signCount) is not greater than \(previousCounter)")
            }
            let extensions = try AppleAuthenticatorExtensions.parse(authenticatorData.remainder)
            return .valid(
                VerifiedAssertion(
                    counter: authenticatorData.signCount,
                    authenticatorData: authenticatorData,
                    clientData: clientData,
                    clientDataHash: Array(clientDataHash),
                    extensions: extensions
                )
            )
        } catch {
            return .invalid(error)
        }
    }
}
