/// The attested credential data that follows an attestation's authenticator data header.
///
/// ```
/// aaguid (16) | credentialIdLength (2, big-endian) | credentialId | COSE_Key (CBOR map) | trailing data
/// ```
/// Since iOS 27 Apple appends its authenticator-extension map after the COSE key (`apple_bundle_version_01`, ...)
/// while the extension-data flag stays clear: the bytes are kept as ``trailingData`` and read as
/// ``extensions`` (``AppleAuthenticatorExtensions`` says which shapes are refused).
public struct AttestedCredentialData: Sendable, Hashable {
    /// The 16-byte aaguid naming the environment.
    public let aaguid: [UInt8]
    /// The credential id (App Attest: the key id, 32 bytes).
    public let credentialId: [UInt8]
    /// The credential public key as a COSE_Key map.
    public let coseKey: CBOR
    /// The bytes after the COSE key, if any.
    public let trailingData: [UInt8]
    /// The trailing bytes read as Apple's extension map; `nil` when there are none.
    public let extensions: AppleAuthenticatorExtensions?

    /// Parses the remainder of attestation authenticator data.
    /// - Throws: ``VerificationError`` `malformed_authenticator_data`, or `malformed_authenticator_extensions` when
    ///   the bytes after the COSE key are not Apple's extension map.
    public init(_ bytes: ArraySlice<UInt8>) throws(VerificationError) {
        let bytes = Array(bytes)
        guard bytes.count >= 18 else {
            throw VerificationError(.malformedAuthenticatorData, "attested credential data is \(bytes.count) bytes, at least 18 needed")
        }
        self.aaguid = Array(bytes[0..<16])
        let idLength = Int(bytes[16]) << 8 | Int(bytes[17])
        guard bytes.count >= 18 + idLength else {
            throw VerificationError(.malformedAuthenticatorData, "credential id of \(idLength) bytes runs past the end")
        }
        self.credentialId = Array(bytes[18..<18 + idLength])
        let keyBytes = Array(bytes[(18 + idLength)...])
        do {
            let (key, consumed) = try CBORDecoder().decodePrefix(keyBytes)
            guard key.mapEntries != nil else {
                throw VerificationError(.malformedAuthenticatorData, "credential public key is a \(key.typeName), not a COSE map")
            }
            self.coseKey = key
            self.trailingData = Array(keyBytes[consumed...])
        } catch let error as VerificationError {
            throw error
        } catch {
            throw VerificationError(.malformedAuthenticatorData, "credential public key: \(error)")
        }
        self.extensions = try AppleAuthenticatorExtensions.parse(trailingData[...])
    }

    /// The COSE key as an uncompressed X9.62 point, when it is an EC2 P-256 key.
    public var coseKeyX963: [UInt8]? {
        guard coseKey[1]?.integerValue == 2, coseKey[-1]?.integerValue == 1,
            let x = coseKey[-2]?.bytesValue, let y = coseKey[-3]?.bytesValue, x.count == 32, y.count == 32
        else { return nil }
        return [0x04] + x + y
    }
}
