public import Foundation

/// App Attest as the client uses it: Apple's `DCAppAttestService` on a device (``SystemAppAttestProvider``), the
/// software device in tests (`AttestGuardClientTesting`). The methods mirror Apple's; a provider throws
/// ``AppAttestFailure`` so that the client can tell a retryable `serverUnavailable` from a lost key.
public protocol AppAttestProvider: Sendable {
    /// Whether the device can attest keys (`DCAppAttestService.isSupported`).
    var isSupported: Bool { get async }
    /// A new key in the Secure Enclave; its key id, base64.
    func generateKey() async throws -> String
    /// Apple's attestation object for the key, over `clientDataHash`.
    func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data
    /// An assertion object: the key's signature over `clientDataHash` and its counter.
    func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data
}

/// DeviceCheck tokens as the client uses them (`DCDevice.current`), for devices that cannot attest.
public protocol DeviceCheckTokenProvider: Sendable {
    /// Whether the device can make tokens (`DCDevice.isSupported`).
    var isSupported: Bool { get async }
    /// A single-use token Apple validates (`DCDevice.generateToken`).
    func generateToken() async throws -> Data
}
