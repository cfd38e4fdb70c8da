import AttestGuardWire
import Crypto
import Foundation

/// One user's App Attest key on this install: generated once, attested once (one attestation in flight whatever
/// the number of requests waiting for it), its id kept in the ``KeyIdStore`` across launches. A key whose
/// attestation Apple could not complete is kept and attested again (`serverUnavailable`); a key the device lost
/// (`invalidKey`) is replaced exactly once per attestation.
actor KeyLifecycle {
    /// What a request can be signed with.
    enum State: Sendable, Hashable {
        /// A registered key.
        case ready(keyId: String)
        /// No key now: requests go with `X-AppAttest-Status` and no assertion.
        case unavailable(AppAttestStatus)
    }

    private let account: String
    private let settings: ClientSettings
    private var attestation: Task<State, any Error>?
    /// Set when attestation gave up on `serverUnavailable`: until then, no new attempt.
    private var unavailableUntil: Date?
    private var deviceUnsupported = false

    init(account: String, settings: ClientSettings) {
        self.account = account
        self.settings = settings
    }

    /// The registered key, attesting one first when there is none.
    func readyKey() async throws -> State {
        if let attestation { return try await attestation.value }
        if let stored = try load(), stored.registered { return .ready(keyId: stored.keyId) }
        if deviceUnsupported { return .unavailable(.unsupported) }
        if let until = unavailableUntil, settings.clock.now() < until { return .unavailable(.throttled) }
        let task = Task { try await self.attestKey() }
        attestation = task
        defer { attestation = nil }
        return try await task.value
    }

    /// Forgets `keyId` when it is still the stored key (another request may have replaced it already).
    func discard(_ keyId: String, reason: String) throws {
        guard let stored = try load(), stored.keyId == keyId else { return }
        do {
            try settings.keyStore.delete(account: account)
        } catch {
            throw AttestGuardClientError(.keyStore, "cannot delete the key id", underlying: error)
        }
        settings.onEvent(.keyDiscarded(keyId: keyId, reason: reason))
    }

    private func attestKey() async throws -> State {
        guard await settings.provider.isSupported else {
            deviceUnsupported = true
            settings.onEvent(.attestationUnavailable(status: .unsupported))
            return .unavailable(.unsupported)
        }
        var replacedLostKey = false
        while true {
            let keyId: String
            do {
                keyId = try await unregisteredKey()
                try await attest(keyId)
                try save(StoredKey(keyId: keyId, registered: true))
                settings.onEvent(.attested(keyId: keyId))
                unavailableUntil = nil
                return .ready(keyId: keyId)
            } catch let failure as AppAttestFailure {
                switch failure.code {
                case .invalidKey where !replacedLostKey:
                    replacedLostKey = true
                    if let stored = try load() { try discard(stored.keyId, reason: AppAttestFailure.Code.invalidKey.description) }
                    continue
                case .serverUnavailable:
                    unavailableUntil = settings.clock.now().addingTimeInterval(settings.retry.attestationCooldown)
                    settings.onEvent(.attestationUnavailable(status: .throttled))
                    return .unavailable(.throttled)
                case .featureUnsupported:
                    deviceUnsupported = true
                    settings.onEvent(.attestationUnavailable(status: .unsupported))
                    return .unavailable(.unsupported)
                default:
                    throw AttestGuardClientError(.attestationFailed, "App Attest could not attest a key: \(failure)", underlying: failure)
                }
            }
        }
    }

    /// The stored key not yet registered (a launch that stopped half-way attests it again), or a new one.
    private func unregisteredKey() async throws -> String {
        if let stored = try load() { return stored.keyId }
        let keyId = try await settings.provider.generateKey()
        try save(StoredKey(keyId: keyId, registered: false))
        return keyId
    }

    /// Attests `keyId` over a fresh attestation challenge and registers it, retrying `serverUnavailable` with the
    /// same key (and the same challenge while it is valid).
    private func attest(_ keyId: String) async throws {
        let (object, challenge) = try await settings.retryingServerUnavailable(purpose: .attestation, keyId: nil) { challenge in
            try await settings.provider.attestKey(keyId, clientDataHash: hash(of: challenge))
        }
        try await register(keyId, object: object, challenge: challenge)
    }

    /// Sends the attestation; a lost answer is sent once more (AttestGuard answers an identical object as idempotent).
    private func register(_ keyId: String, object: Data, challenge: IssuedChallenge) async throws {
        do {
            do {
                try await settings.routes.registerAttestation(keyId: keyId, attestation: object, challenge: challenge, deviceId: settings.deviceId)
            } catch let error as AttestGuardClientError where error.code == .transport {
                try await settings.routes.registerAttestation(keyId: keyId, attestation: object, challenge: challenge, deviceId: settings.deviceId)
            }
        } catch let error as AttestGuardClientError where error.answer?.code == .nonceMismatch {
            throw AttestGuardClientError(
                .hashConventionMismatch,
                "AttestGuard refused the attestation with nonce_mismatch: the client hashes challenges with the `\(settings.hashConvention.rawValue)` convention; check the app's attestation clientDataHash convention on the server",
                answer: error.answer
            )
        }
    }

    nonisolated private func hash(of challenge: IssuedChallenge) -> Data {
        switch settings.hashConvention {
        case .sha256: Data(SHA256.hash(data: challenge.bytes))
        case .raw: challenge.bytes
        }
    }

    private func load() throws -> StoredKey? {
        do {
            return try settings.keyStore.load(account: account)
        } catch {
            throw AttestGuardClientError(.keyStore, "cannot read the key id", underlying: error)
        }
    }

    private func save(_ key: StoredKey) throws {
        do {
            try settings.keyStore.save(key, account: account)
        } catch {
            throw AttestGuardClientError(.keyStore, "cannot store the key id", underlying: error)
        }
    }
}
