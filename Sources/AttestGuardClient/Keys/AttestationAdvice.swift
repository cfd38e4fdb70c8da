import Foundation

/// Whether the session's user is to attest a key now, as the app's rollout says (`GET attestation-required`): asked
/// once a session, and only while the user has no registered key. The rollout percentage and ramp limit how many
/// devices call Apple's `attestKey` (what Apple's gradual-rollout guidance is for), not only what the gateway
/// demands. An answer that does not come is no advice: nothing is attested now, and the next request asks again; a
/// route that requires an assertion still gets one (``AttestGuardClient/send(_:)`` attests on `assertion_missing`).
actor AttestationAdvice {
    private let routes: AppFacingClient
    private var advised: Bool?
    private var asking: Task<Bool?, Never>?

    init(routes: AppFacingClient) {
        self.routes = routes
    }

    /// Whether to attest now.
    func attestNow() async -> Bool {
        if let advised { return advised }
        if let asking { return await asking.value ?? false }
        let routes = self.routes
        let task = Task<Bool?, Never> { try? await routes.attestationRequired() }
        asking = task
        let answer = await task.value
        asking = nil
        if let answer { advised = answer }
        return answer ?? false
    }
}
