/// What a state change that rolled back answers, shared by both backends: the rows are read back outside the
/// rolled-back transaction and ``RejectionDiagnosis`` names the condition that failed. A rollback that no
/// condition explains (the rows changed again in between, or a bug) is a ``StoreError`` (`query_failed`) on both
/// backends, never the internal ``RollbackSignal``.
extension RiskStore {
    /// The outcome of a key registration whose transaction rolled back at `signal`.
    package func registrationOutcome(rolledBackAt signal: RollbackSignal, _ registration: KeyRegistration) async throws -> KeyRegistrationOutcome {
        let key = registration.key
        if let existing = try await self.key(appId: key.appId, keyId: key.keyId) {
            // The key exists: either the insert met it, or a twin of this very submission consumed the challenge
            // first (then this one is the idempotent re-submission it would be a moment later).
            let outcome = RejectionDiagnosis.existingKey(existing, registration: registration)
            if signal.step == .keyExists || outcome == .alreadyRegistered(existing) { return outcome }
        }
        let record = try await challenge(id: registration.claim.challengeId)
        guard let rejection = RejectionDiagnosis.challenge(record, claim: registration.claim) else {
            throw signal.unexplained("registration")
        }
        return .rejected(rejection)
    }

    /// The outcome of an assertion commit whose transaction rolled back at `signal`.
    package func assertionOutcome(rolledBackAt signal: RollbackSignal, _ commit: AssertionCommit) async throws -> AssertionCommitOutcome {
        let claim = commit.claim
        let record = try await challenge(id: claim.challengeId)
        if let rejection = RejectionDiagnosis.challenge(record, claim: claim, counter: commit.counter) {
            return .rejected(rejection)
        }
        let key = try await self.key(appId: claim.appId, keyId: claim.keyId)
        guard let rejection = RejectionDiagnosis.counter(key, counter: commit.counter) else {
            throw signal.unexplained("assertion")
        }
        return .rejected(rejection)
    }
}

extension RollbackSignal {
    /// The store failure for a rollback whose cause the rows no longer show.
    func unexplained(_ operation: String) -> StoreError {
        StoreError(.queryFailed, "\(operation) rolled back at \(step) but no condition fails now")
    }
}
