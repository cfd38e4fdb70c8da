public import Foundation
public import Crypto
public import X509
public import AttestCore
import AppleReceipts
import AttestGuardWire

/// The real, Apple-signed App Attest objects under `Tests/Fixtures/apple`, with the parameters to
/// verify each at its own instant.
public enum AppleFixtures {
    /// `Tests/Fixtures/apple` in this checkout.
    public static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/apple")

    /// The whole bytes of a fixture file.
    public static func data(_ relativePath: String) -> [UInt8] {
        let url = directory.appendingPathComponent(relativePath)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            fatalError("missing fixture \(url.path)")
        }
        return Array(data)
    }

    /// A fixture file's bytes, decoding base64 text when the file holds it.
    public static func object(_ relativePath: String) -> [UInt8] {
        let raw = data(relativePath)
        if relativePath.hasSuffix(".b64") {
            let text = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let decoded = Data(base64Encoded: text) else { fatalError("\(relativePath) is not base64") }
            return Array(decoded)
        }
        return raw
    }

    /// A P-256 public key from a PEM fixture.
    public static func publicKey(_ relativePath: String) -> P256.Signing.PublicKey {
        let pem = String(decoding: data(relativePath), as: UTF8.self)
        do {
            return try P256.Signing.PublicKey(pemRepresentation: pem)
        } catch {
            fatalError("\(relativePath) is not a P-256 PEM key: \(error)")
        }
    }

    /// Parses an ISO-8601 instant from the fixtures' metadata.
    public static func instant(_ text: String) -> Date {
        guard let date = RFC3339.parse(text) else { fatalError("bad instant \(text)") }
        return date
    }

    /// Every vector of `real-devices-dev-2020/manifest.json`.
    public static let manifest: [ManifestVector] = {
        let raw = data("real-devices-dev-2020/manifest.json")
        do {
            return try JSONDecoder().decode([ManifestVector].self, from: Data(raw))
        } catch {
            fatalError("manifest.json does not decode: \(error)")
        }
    }()

    public static var attestationVectors: [ManifestVector] { manifest.filter { $0.kind == "attestation" } }
    public static var assertionVectors: [ManifestVector] { manifest.filter { $0.kind == "assertion" } }
    public static var receiptVectors: [ManifestVector] { manifest.filter { $0.kind == "receipt" } }
}

/// One entry of the 2020 manifest.
public struct ManifestVector: Decodable, Sendable, CustomStringConvertible {
    public let vector: String
    public let kind: String
    public let appId: String
    public let keyIdBase64: String?
    public let environment: String?
    public let challengeUtf8: String?
    public let clientDataHashHex: String?
    public let clientDataUtf8: String?
    public let expectedCounter: UInt32?
    public let previousCounter: UInt32?
    public let publicKeyPem: String?
    public let attestedPublicKeyPem: String?
    public let verifyAt: String?
    public let type: String?
    public let environmentField7: String?
    public let creationTime: String?
    public let expirationTime: String?
    public let notBefore: String?
    public let riskMetric: Int?
    public let tokenField5: String?

    public var description: String { vector }

    /// The device folder, such as `ios-14.2`.
    public var device: String { String(vector.split(separator: "/")[0]) }

    /// The object's file path relative to the fixtures directory.
    public var objectPath: String {
        switch kind {
        case "attestation": "real-devices-dev-2020/\(device)/attestation.cbor"
        case "assertion": "real-devices-dev-2020/\(device)/assertion.cbor"
        default: "real-devices-dev-2020/\(vector)"
        }
    }

    public var keyId: [UInt8] { Array(Data(base64Encoded: keyIdBase64 ?? "") ?? Data()) }
    /// The request an attestation vector verifies against: its development key, app and UTF-8 challenge.
    public var attestationRequest: AttestationRequest {
        AttestationRequest(
            keyId: keyId,
            app: AppIdentity(appId: appId),
            allowedEnvironments: [.development],
            clientData: .challenge(Array((challengeUtf8 ?? "").utf8))
        )
    }
    public var verifyInstant: Date { AppleFixtures.instant(verifyAt ?? "") }
    public var publicKey: P256.Signing.PublicKey {
        AppleFixtures.publicKey("real-devices-dev-2020/\(device)/public_key.pem")
    }
}

/// The 2024 real device (iOS 17.2.1, development) and its parameters.
public enum RealDevice2024 {
    public static let app = AppIdentity(appId: "979F6L8R8M.org.reactjs.native.example.RNClientAttest")
    public static let keyId = Array(Data(base64Encoded: "+7NWLawiwi1lyK6vxqHzUp1bXzMji/Ft89ztMqPW4H4=")!)
    public static let challenge = Hex.decode("279e86037bb94c7a8965aa1f8d7c16ee")!
    public static let verifyAt = AppleFixtures.instant("2024-01-27T16:15:40Z")
    public static var attestation: [UInt8] { AppleFixtures.object("real-device-dev-2024/attestation.b64") }
    public static var receipt: [UInt8] { AppleFixtures.object("real-device-dev-2024/receipt_attest.b64") }
    public static var assertion: [UInt8] { AppleFixtures.object("real-device-dev-2024/assertion.b64") }
    public static var clientData: [UInt8] { AppleFixtures.data("real-device-dev-2024/assertion_clientData.json") }
    public static var publicKey: P256.Signing.PublicKey { AppleFixtures.publicKey("real-device-dev-2024/public_key.pem") }

    public static var request: AttestationRequest {
        AttestationRequest(keyId: keyId, app: app, allowedEnvironments: [.development], clientData: .challenge(challenge))
    }
}

/// Apple's sample from its 2026 Attestation Object Validation Guide: a real iOS 27.0 production attestation carrying
/// the authenticator-extension map (`Tests/Fixtures/apple/README.md`, apple-guide-2026).
public enum AppleGuide2026 {
    public static let app = AppIdentity(appId: "1234567890.com.example.myapp")
    public static let keyIdBase64 = "zgSY9YSD+7TaDXssY6WlOPVS1K3Lmk+pFhlcSWE+ZV0="
    public static let keyId = Array(Data(base64Encoded: keyIdBase64)!)
    /// The guide passes the challenge's bytes to `attestKey` unhashed.
    public static let challenge = Array("example_server_challenge".utf8)
    public static let verifyAt = AppleFixtures.instant("2026-04-21T18:13:12Z")
    public static let path = "apple-guide-2026/attestation.b64"
    public static var attestation: [UInt8] { AppleFixtures.object(path) }

    public static var request: AttestationRequest {
        AttestationRequest(keyId: keyId, app: app, allowedEnvironments: [.production], clientData: .challenge(challenge, hashing: .none))
    }
}

/// The two Apple roots as shipped in the fixtures (the same certificates are built in).
public enum AppleFixturesRoots {
    public static var appAttestRoot: Certificate {
        try! Certificate(pemEncoded: String(decoding: AppleFixtures.data("roots/Apple_App_Attestation_Root_CA.pem"), as: UTF8.self))
    }
    public static var receiptRoot: Certificate {
        try! Certificate(pemEncoded: String(decoding: AppleFixtures.data("roots/Apple_Root_CA_G3.pem"), as: UTF8.self))
    }
}
