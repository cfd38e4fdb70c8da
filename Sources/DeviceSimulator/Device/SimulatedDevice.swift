public import Foundation
public import AttestCore
import AppleReceipts
import Crypto
import X509
public import AttestVocabulary

/// A software iPhone that answers `attestKey` and `generateAssertion` in real App Attest formats, under
/// a ``SimulatedApplePKI`` instead of Apple's.
///
/// Keys are derived from the PKI seed, the device identifier and a key index, so a test that names the
/// same seed, device and index gets the same key. Attestation objects carry a credential certificate
/// with the nonce, app-info and OS-info extensions in Apple's DER shapes, authenticator data with the
/// environment's aaguid (and, as since 2026, a trailing CBOR map), and an ATTEST receipt.
public struct SimulatedDevice: Sendable {
    /// The PKI that signs credential certificates and receipts.
    public let pki: SimulatedApplePKI
    /// A name that makes this device's keys distinct from other devices'.
    public let identifier: String
    /// The App Attest environment the device attests in.
    public let environment: AppAttestEnvironment
    /// The OS version written into credential certificates: iOS 27, whose attestations carry the extension map
    /// ``AttestationOptions/appleExtensions`` writes by default.
    public var osVersion: String = "27.0"
    /// The OS build written into credential certificates (Apple's iOS 27.0 sample's).
    public var osBuild: String = "24A325b"

    public init(pki: SimulatedApplePKI, identifier: String = "device-1", environment: AppAttestEnvironment = .production) {
        self.pki = pki
        self.identifier = identifier
        self.environment = environment
    }

    /// The device's `index`th key (like `DCAppAttestService.generateKey`).
    public func generateKey(_ index: Int = 0) -> SimulatedKey {
        SimulatedKey(privateKey: pki.keys.p256("device:\(identifier):key:\(index)"))
    }

    /// The receipt token Apple would assign to a key (stable across refreshes).
    public func token(for keyId: [UInt8]) -> String {
        Base64Text.encode(pki.keys.bytes("token:\(Hex.encode(keyId))", count: 64))
    }

    /// Attests a key (like `DCAppAttestService.attestKey`) at the instant `now`.
    /// - Parameters:
    ///   - key: The key to attest.
    ///   - app: The app whose App ID the device writes into the RP ID hash, app info and receipt.
    ///   - clientDataHash: The hash the app passes to `attestKey`.
    ///   - now: The attestation instant (credential validity and receipt creation derive from it).
    ///   - options: Deliberate deviations for negative tests.
    public func attest(
        _ key: SimulatedKey,
        app: AppIdentity,
        clientDataHash: [UInt8],
        at now: Date,
        options: AttestationOptions = AttestationOptions()
    ) throws -> SimulatedAttestation {
        let authenticatorData = self.authenticatorData(for: key, app: app, options: options)
        let nonce = options.nonce ?? Array(SHA256.hash(data: authenticatorData + clientDataHash))
        let issuer = options.credentialIssuer ?? pki.attestationIntermediate
        let credential = try issuer.issue(
            subject: try DistinguishedName {
                CommonName(Hex.encode(key.keyId))
                OrganizationalUnitName("AAA Certification")
                OrganizationName("Apple Inc.")
                StateOrProvinceName("California")
            },
            publicKey: Certificate.PublicKey(key.publicKey),
            serialNumber: pki.keys.serialNumber("credential:\(Hex.encode(key.keyId)):\(now.timeIntervalSince1970)"),
            validity: now.addingTimeInterval(-options.credentialValidity.before)...now.addingTimeInterval(options.credentialValidity.after),
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: [
                try Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true),
                try Certificate.Extension(
                    KeyUsage(digitalSignature: true, nonRepudiation: true, keyEncipherment: true, dataEncipherment: true),
                    critical: true
                ),
                try CredentialCertificateExtensions.appInfo(appId: app.appId),
                try CredentialCertificateExtensions.osInfo(version: osVersion, build: osBuild),
                try CredentialCertificateExtensions.nonce(nonce),
            ] + (try options.keyAccessControlPolicy.map {
                [try CredentialCertificateExtensions.keyAccessControl($0, critical: options.keyAccessControlCritical)]
            } ?? []) + options.extraCredentialExtensions
        )
        let credentialDER = credential.derBytes
        let token = token(for: key.keyId)
        let receipt = SimulatedReceiptIssuer(pki: pki).receipt(
            ReceiptContents(
                appId: app.appId,
                attestedCertificate: credentialDER,
                clientHash: clientDataHash,
                token: token,
                type: .attest,
                environment: ReceiptContents.environmentField(for: environment),
                creationTime: now
            )
        )
        let object = AttestationObject(
            certificates: [credentialDER, pki.attestationIntermediate.derEncoded],
            receipt: receipt,
            authenticatorData: authenticatorData
        )
        return SimulatedAttestation(object: object.cborEncoded, credentialCertificate: credentialDER, receipt: receipt, token: token)
    }

    /// rpIdHash ‖ flags 0x40 ‖ signCount ‖ aaguid ‖ credentialIdLength ‖ credentialId ‖ COSE key [‖ Apple's map].
    func authenticatorData(for key: SimulatedKey, app: AppIdentity, options: AttestationOptions) -> [UInt8] {
        let counter = options.signCount
        var data = app.rpIdHash
        data.append(0x40)
        data += [UInt8(counter >> 24), UInt8(counter >> 16 & 0xFF), UInt8(counter >> 8 & 0xFF), UInt8(counter & 0xFF)]
        data += options.aaguid ?? environment.aaguid
        let credentialId = options.credentialId ?? key.keyId
        data += [UInt8(credentialId.count >> 8), UInt8(credentialId.count & 0xFF)]
        data += credentialId
        let point = Array(key.publicKey.x963Representation)
        data += CBOREncoder.encode(
            .map([
                CBORMapEntry(key: .unsigned(1), value: .unsigned(2)),
                CBORMapEntry(key: .unsigned(3), value: .negative(6)),
                CBORMapEntry(key: .negative(0), value: .unsigned(1)),
                CBORMapEntry(key: .negative(1), value: .bytes(Array(point[1...32]))),
                CBORMapEntry(key: .negative(2), value: .bytes(Array(point[33...64]))),
            ])
        )
        if let extensions = options.appleExtensions {
            data += extensions.cborEncoded
        }
        return data
    }
}
