public import AttestCore
public import AttestGuardClient
public import DeviceSimulator
public import Foundation

/// App Attest on the software device (`SimulatedDevice`) for the client in tests, previews and demos: real
/// attestation and assertion objects under the simulator's test PKI, which AttestGuard verifies when configured
/// with that PKI's root. It behaves as the Secure Enclave does where the client depends on it: a key attests once,
/// an unknown key is `invalidKey`, and ``reinstall()`` loses every key as deleting the app does. Faults are
/// injected per operation (``failNext(_:with:times:)``).
public actor SimulatedAppAttestProvider: AppAttestProvider {
    /// An App Attest call, to inject a fault into (``failNext(_:with:times:)``) or count (``calls``).
    public enum Operation: Sendable, Hashable, CaseIterable {
        /// ``generateKey()``.
        case generateKey
        /// ``attestKey(_:clientDataHash:)``.
        case attestKey
        /// ``generateAssertion(_:clientDataHash:)``.
        case generateAssertion
    }

    /// The software device whose keys these are: its test PKI signs the attestations.
    public let device: SimulatedDevice
    /// The app the device attests for: its App ID goes into every attestation and assertion.
    public let app: AppIdentity
    /// What ``isSupported`` answers (false: a device without App Attest).
    public var supported: Bool
    private let now: @Sendable () -> Date
    private var keys: [String: SimulatedKey] = [:]
    private var attested: Set<String> = []
    private var nextKeyIndex = 0
    private var faults: [Operation: [AppAttestFailure.Code]] = [:]
    /// The `clientDataHash` of every attestation, in order.
    public private(set) var attestedClientDataHashes: [Data] = []
    /// How many times each operation was called (failed calls included).
    public private(set) var calls: [Operation: Int] = [:]

    /// - Parameters:
    ///   - device: The software device whose keys these are.
    ///   - app: The app the device attests for (its App ID goes into every object).
    ///   - supported: Whether the device has App Attest.
    ///   - now: The attestation instant (the credential certificate's validity and the receipt derive from it).
    public init(device: SimulatedDevice, app: AppIdentity, supported: Bool = true, now: @escaping @Sendable () -> Date = { Date() }) {
        self.device = device
        self.app = app
        self.supported = supported
        self.now = now
    }

    public var isSupported: Bool { supported }

    /// Makes the next `times` calls of `operation` fail with `code`.
    public func failNext(_ operation: Operation, with code: AppAttestFailure.Code, times: Int = 1) {
        faults[operation, default: []] += Array(repeating: code, count: times)
    }

    /// Deletes the app: every key is gone, while the app's Keychain entries (kept elsewhere) survive.
    public func reinstall() {
        keys.removeAll()
        attested.removeAll()
    }

    /// Sets whether the device has App Attest.
    public func setSupported(_ supported: Bool) {
        self.supported = supported
    }

    /// The key ids generated and not lost.
    public var keyIds: [String] { keys.keys.sorted() }

    public func generateKey() async throws -> String {
        try enter(.generateKey)
        let key = device.generateKey(nextKeyIndex)
        nextKeyIndex += 1
        keys[key.keyIdBase64] = key
        return key.keyIdBase64
    }

    public func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data {
        try enter(.attestKey)
        guard let key = keys[keyId], !attested.contains(keyId) else {
            throw AppAttestFailure(.invalidKey, "no unattested key \(keyId) on this device")
        }
        let attestation = try device.attest(key, app: app, clientDataHash: Array(clientDataHash), at: now())
        attested.insert(keyId)
        attestedClientDataHashes.append(clientDataHash)
        return Data(attestation.object)
    }

    public func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data {
        try enter(.generateAssertion)
        guard var key = keys[keyId], attested.contains(keyId) else {
            throw AppAttestFailure(.invalidKey, "no attested key \(keyId) on this device")
        }
        let object = key.assertion(app: app, clientDataHash: Array(clientDataHash))
        keys[keyId] = key
        return Data(object)
    }

    /// Counts the call and throws its injected fault, if any.
    private func enter(_ operation: Operation) throws {
        calls[operation, default: 0] += 1
        guard var queued = faults[operation], !queued.isEmpty else {
            guard supported else { throw AppAttestFailure(.featureUnsupported, "the device has no App Attest") }
            return
        }
        let code = queued.removeFirst()
        faults[operation] = queued
        throw AppAttestFailure(code, "injected")
    }
}
