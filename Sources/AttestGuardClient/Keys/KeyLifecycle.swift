import AttestGuardWire
import Crypto
import Foundation

/// One user's App Attest key on this install: generated once, attested once (one attestation in flight in the
/// process, whatever the number of requests and clients waiting for it), its id kept in the ``KeyIdStore`` across
/// launches. A key Apple could not reach is kept and attested again (`serverUnavailable`); a key the device lost
/// (`invalidKey`) is replaced exactly once per attestation; any other failure discards the key, as Apple asks, and
/// leaves attestation alone for the cooldown (or the server's `Retry-After`), so that an outage costs no key per
/// request.
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
    /// Set when attestation gave up: until then, requests go unattested with this status.
    private var unavailable: (status: AppAttestStatus, until: Date)?
    private var deviceUnsupported = false
    /// Keys whose assertion App Attest refused once with `invalidInput`, and whether a key was replaced for a repeat
    /// this session (at most once: a device that refuses every key's assertions must not attest one per request).
    private var refusedInput: Set<String> = []
    private var replacedAfterRefusedInput = false

    init(account: String, settings: ClientSettings) {
        self.account = account
        self.settings = settings
    }

    /// The registered key, attesting one first when there is none. Throws why attestation failed, once; until the
    /// cooldown ends the answer is then ``State/unavailable(_:)`` with `failed`.
    func readyKey() async throws -> State {
        if let attestation { return try await attestation.value }
        if let stored = try load(), stored.registered { return .ready(keyId: stored.keyId) }
        if deviceUnsupported { return .unavailable(.unsupported) }
        if let unavailable, settings.clock.now() < unavailable.until { return .unavailable(unavailable.status) }
        let gate = settings.keyStore.location + "\u{0}" + account
        let task = Task { try await AttestationGate.shared.run(gate) { try await self.attestKey() } }
        attestation = task
        defer { attestation = nil }
        return try await task.value
    }

    /// Records that App Attest refused an assertion of `keyId` with `invalidInput`; returns whether to treat it as key
    /// loss: the second refusal of the same key (a key the device no longer holds answers so on every call, seen on
    /// TestFlight installs), once a session.
    func refusedInput(of keyId: String) -> Bool {
        guard refusedInput.insert(keyId).inserted == false, !replacedAfterRefusedInput else { return false }
        replacedAfterRefusedInput = true
        return true
    }

    /// Whether the user has a registered key on this install (nothing is attested to find out).
    func hasRegisteredKey() throws -> Bool {
        try load()?.registered == true
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
        guard await settings.provider.isSupported else { return await markUnsupported() }
        // Another client of the same account may have attested while this one waited at the gate.
        if let stored = try load(), stored.registered { return .ready(keyId: stored.keyId) }
        var replacedLostKey = false
        while true {
            let keyId: String
            do {
                keyId = try await unregisteredKey()
            } catch let failure as AppAttestFailure {
                if failure.code == .featureUnsupported { return await markUnsupported() }
                await report(.failed, failure)
                throw giveUp(after: AttestGuardClientError(.attestationFailed, "App Attest could not generate a key: \(failure)", underlying: failure))
            }
            let object: Data
            let challenge: IssuedChallenge
            do {
                (object, challenge) = try await settings.retryingServerUnavailable(purpose: .attestation, keyId: nil) { challenge in
                    try await self.settings.provider.attestKey(keyId, clientDataHash: self.hash(of: challenge))
                }
            } catch let failure as AppAttestFailure {
                if failure.code != .featureUnsupported { await report(.failed, failure) }
                if failure.code == .invalidKey, !replacedLostKey {
                    // The key is gone from the device (a reinstall kept its Keychain entry): one new key, now.
                    replacedLostKey = true
                    try discard(keyId, reason: failure.code.description)
                    continue
                } else if failure.code == .serverUnavailable {
                    return giveUp(.throttled, retryAfter: nil)
                } else if failure.code == .featureUnsupported {
                    return await markUnsupported()
                }
                try discard(keyId, reason: failure.code.description)
                throw giveUp(after: AttestGuardClientError(.attestationFailed, "App Attest could not attest a key: \(failure)", underlying: failure))
            } catch let error as AttestGuardClientError {
                // No challenge: the key was not attested and stays for the next try.
                throw giveUp(after: error)
            }
            // The report goes beside the registration, so the app waits for the slower of the two, not for both.
            async let attestedReported: Void = report(.attested, nil)
            let registration: Result<Void, any Error>
            do {
                try await register(keyId, object: object, challenge: challenge)
                registration = .success(())
            } catch {
                registration = .failure(error)
            }
            await attestedReported
            if case .failure(let error) = registration {
                guard let error = error as? AttestGuardClientError else { throw error }
                // Apple attests a key once: a key it attested that AttestGuard did not register is replaced next time.
                try discard(keyId, reason: Self.registrationFailed)
                if let code = error.answer?.code, ServerErrorCode.buildRefusals.contains(code) {
                    // The app's build policy refuses this build (how it was distributed, or its version): every new
                    // key would be refused too and counted in Apple's risk metric, and the build changes only with an
                    // update, which starts a new process. So this process attests no more.
                    unavailable = (.failed, .distantFuture)
                    settings.onEvent(.attestationUnavailable(status: .failed))
                    throw error
                }
                throw giveUp(after: error)
            }
            try save(StoredKey(keyId: keyId, registered: true))
            settings.onEvent(.attested(keyId: keyId))
            unavailable = nil
            return .ready(keyId: keyId)
        }
    }

    /// The reason a key is discarded after AttestGuard did not register its attestation.
    static let registrationFailed = "registration_failed"

    private func markUnsupported() async -> State {
        await report(.unsupported, nil)
        deviceUnsupported = true
        settings.onEvent(.attestationUnavailable(status: .unsupported))
        return .unavailable(.unsupported)
    }

    /// Reports an attempt's outcome to AttestGuard's rollout ramp: best effort, one call, its failure ignored (the
    /// app's flow never waits on it beyond the call, nor fails because of it).
    private func report(_ outcome: AttestationOutcomeReport.Outcome, _ failure: AppAttestFailure?) async {
        try? await settings.routes.reportOutcome(AttestationOutcomeReport(outcome: outcome, errorCode: failure.map(\.code.deviceCheckErrorCode)))
    }

    /// No attestation until the cooldown (or `retryAfter` seconds) has passed.
    private func giveUp(_ status: AppAttestStatus, retryAfter: Int?) -> State {
        let seconds = retryAfter.map(Double.init) ?? settings.retry.attestationCooldown
        unavailable = (status, settings.clock.now().addingTimeInterval(seconds))
        settings.onEvent(.attestationUnavailable(status: status))
        return .unavailable(status)
    }

    private func giveUp(after error: AttestGuardClientError) -> AttestGuardClientError {
        _ = giveUp(.failed, retryAfter: error.answer?.retryAfter)
        return error
    }

    /// The stored key not yet registered (a launch that stopped before attesting it), or a new one.
    private func unregisteredKey() async throws -> String {
        if let stored = try load() { return stored.keyId }
        let keyId = try await settings.provider.generateKey()
        try save(StoredKey(keyId: keyId, registered: false))
        return keyId
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
