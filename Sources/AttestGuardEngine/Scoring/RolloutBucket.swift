import AttestGuardStore
import Crypto

/// A user's place in an app's rollout: 0-99 from the first four bytes of SHA-256(app id, NUL, user id), so the
/// same user lands in the same bucket on every server and every day, and raising the percentage only adds users.
enum RolloutBucket {
    static func of(appId: String, userId: String) -> Int {
        let prefix = SHA256.prefix(4, ofUTF8: [appId, "\u{0}", userId]).reduce(UInt32(0)) { ($0 << 8) | UInt32($1) }
        return Int(prefix % 100)
    }
}

extension AppPolicy {
    /// Whether `userId` falls inside the app's attestation-required percentage (`rollout.attestation_required`): the
    /// users a `require-for-rollout` route asks for an assertion.
    public func requiresAttestation(of userId: Identifier) -> Bool {
        RolloutBucket.of(appId: appId, userId: userId.value) < attestationRequiredPercent
    }
}
