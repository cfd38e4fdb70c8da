import AttestGuardWire
import Foundation

extension ClientSettings {
    /// Runs one App Attest call over a challenge of `purpose`, retrying `serverUnavailable` with back-off: the same
    /// key, and the same challenge while it is valid (a new one once it expired). Any other failure, or the last
    /// `serverUnavailable`, is thrown as an ``AppAttestFailure``.
    /// - Returns: The call's result and the challenge it was made over.
    func retryingServerUnavailable<Result: Sendable>(
        purpose: WireChallengePurpose,
        keyId: String?,
        _ call: @Sendable (IssuedChallenge) async throws -> Result
    ) async throws -> (result: Result, challenge: IssuedChallenge) {
        var challenge = try await routes.challenge(purpose: purpose, keyId: keyId)
        var attempt = 1
        while true {
            do {
                return (try await call(challenge), challenge)
            } catch {
                let failure = AppAttestFailure(classifying: error)
                guard failure.code == .serverUnavailable, attempt < retry.attempts else { throw failure }
                let delay = retry.delay(afterAttempt: attempt)
                onEvent(.appAttestRetry(attempt: attempt, delay: delay))
                try await clock.sleep(seconds: delay)
                attempt += 1
                if clock.now() >= challenge.expiresAt {
                    challenge = try await routes.challenge(purpose: purpose, keyId: keyId)
                }
            }
        }
    }
}
