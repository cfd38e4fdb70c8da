public import Foundation
public import AttestCore
public import DeviceSimulator
import Crypto
public import AttestVocabulary

/// One shared simulated PKI (building it signs five certificates) and helpers around it.
public enum SimulatorFixtures {
    /// The PKI every simulator test uses, seeded for reproducibility.
    public static let pki: SimulatedApplePKI = {
        do {
            return try SimulatedApplePKI(seed: "attestguard-tests")
        } catch {
            fatalError("the simulated PKI could not be built: \(error)")
        }
    }()

    /// An instant well inside the PKI's validity.
    public static let now = AppleFixtures.instant("2026-11-22T12:00:00Z")

    public static let app = AppIdentity(appId: "ABCDE12345.com.example.attestguard")

    /// A verifier that trusts the simulated roots.
    public static let verifier = AttestationVerifier(trustRoots: pki.attestationTrustRoots, receiptTrustRoots: pki.receiptTrustRoots)

    /// A fresh 32-byte challenge derived from a label.
    public static func challenge(_ label: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(label.utf8)))
    }

    /// Attests a device's key for ``app`` with the SHA-256 challenge convention.
    public static func attestation(
        device: SimulatedDevice,
        key: SimulatedKey,
        challenge: [UInt8],
        options: AttestationOptions = AttestationOptions()
    ) throws -> SimulatedAttestation {
        try device.attest(key, app: app, clientDataHash: Array(SHA256.hash(data: challenge)), at: now, options: options)
    }

    /// The request that matches ``attestation(device:key:challenge:options:)``.
    public static func request(key: SimulatedKey, challenge: [UInt8], environments: Set<AppAttestEnvironment> = [.production, .development]) -> AttestationRequest {
        AttestationRequest(keyId: key.keyId, app: app, allowedEnvironments: environments, clientData: .challenge(challenge))
    }
}
