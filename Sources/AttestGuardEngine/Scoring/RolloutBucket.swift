import AttestGuardStore
import Crypto

/// A user's place in an app's rollout: 0-99 from the first four bytes of SHA-256(app id, NUL, user id), so the
/// same user lands in the same bucket on every server and every day, and raising the percentage only adds users.
enum RolloutBucket {
    static func of(appId: String, userId: String) -> Int {
        // The strings' UTF-8 hashed where it lies, not copied: a verdict under a rule set that reads the bucket
        // computes it.
        var hash = SHA256()
        hash.update(utf8: appId)
        hash.update(utf8: "\u{0}")
        hash.update(utf8: userId)
        let prefix = hash.finalize().prefix(4).reduce(UInt32(0)) { ($0 << 8) | UInt32($1) }
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
