public import Crypto
public import AttestCore

/// An App Attest key held by a ``SimulatedDevice``: the P-256 private key, its key id and the assertion
/// counter the Secure Enclave would keep.
public struct SimulatedKey: Sendable {
    /// The private key (never leaves a real device; tests may read it).
    public let privateKey: P256.Signing.PrivateKey
    /// SHA-256 of the uncompressed public key: the key id an app sends.
    public let keyId: [UInt8]
    /// The counter of the last assertion (0 before the first).
    public private(set) var counter: UInt32

    init(privateKey: P256.Signing.PrivateKey) {
        self.privateKey = privateKey
        self.keyId = Array(SHA256.hash(data: privateKey.publicKey.x963Representation))
        self.counter = 0
    }

    /// The public key.
    public var publicKey: P256.Signing.PublicKey { privateKey.publicKey }
    /// The key id as the app sends it (standard base64).
    public var keyIdBase64: String {
        Base64Text.encode(keyId)
    }

    /// Signs `clientData` the way `generateAssertion` does and advances the counter.
    ///
    /// authenticatorData = rpIdHash ‖ flags 0x40 ‖ counter; nonce = SHA-256(authenticatorData ‖ SHA-256(clientData));
    /// signature = ECDSA-P256-SHA256 over the nonce as a message.
    /// - Returns: The CBOR assertion object.
    /// `extensions`: iOS 27's map after the counter (`nil`: none, as before iOS 27).
    public mutating func assertion(
        app: AppIdentity, clientData: [UInt8], flags: UInt8 = 0x40, extensions: AppleAuthenticatorExtensions? = nil
    ) -> [UInt8] {
        assertion(app: app, clientDataHash: Array(SHA256.hash(data: clientData)), flags: flags, extensions: extensions)
    }

    /// Signs a clientData hash, as `DCAppAttestService.generateAssertion` is given it, and advances the counter.
    public mutating func assertion(
        app: AppIdentity, clientDataHash: [UInt8], flags: UInt8 = 0x40, extensions: AppleAuthenticatorExtensions? = nil
    ) -> [UInt8] {
        counter += 1
        return Self.assertion(privateKey: privateKey, app: app, clientDataHash: clientDataHash, counter: counter, flags: flags, extensions: extensions)
    }

    /// Signs an assertion with an explicit counter, without touching the key's own (for replay and race tests).
    public static func assertion(privateKey: P256.Signing.PrivateKey, app: AppIdentity, clientData: [UInt8], counter: UInt32) -> [UInt8] {
        assertion(privateKey: privateKey, app: app, clientDataHash: Array(SHA256.hash(data: clientData)), counter: counter)
    }

    /// ``assertion(privateKey:app:clientData:counter:)`` over a clientData hash.
    /// - Parameters:
    ///   - flags: The authenticator data's flags byte: 0x40 (AT) as real devices write it; iOS 27 devices that append
    ///     the map usually keep ED (0x80) clear, some set it.
    ///   - extensions: iOS 27's extension map, appended after the counter; `nil` for none.
    public static func assertion(
        privateKey: P256.Signing.PrivateKey, app: AppIdentity, clientDataHash: [UInt8], counter: UInt32,
        flags: UInt8 = 0x40, extensions: AppleAuthenticatorExtensions? = nil
    ) -> [UInt8] {
        var authenticatorData = app.rpIdHash
        authenticatorData.append(flags)
        authenticatorData += [UInt8(counter >> 24), UInt8(counter >> 16 & 0xFF), UInt8(counter >> 8 & 0xFF), UInt8(counter & 0xFF)]
        if let extensions { authenticatorData += extensions.cborEncoded }
        let nonce = Array(SHA256.hash(data: authenticatorData + clientDataHash))
        let signature = (try? privateKey.signature(for: nonce).derRepresentation).map(Array.init) ?? []
        return AssertionObject(signature: signature, authenticatorData: authenticatorData).cborEncoded
    }
}
