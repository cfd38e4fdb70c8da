import Synchronization

/// Counts how an ``AttestationVerifier`` validated credential certificate chains: a hook that tests inject to see
/// that the chain up to the root is validated once per intermediate, and the credential certificate every time.
package final class ChainValidationCounter: Sendable {
    /// The validations counted so far, by kind.
    package struct Counts: Sendable, Equatable {
        /// Whole chains validated up to a pinned root: for Apple's chain two P-384 verifications when it holds.
        package var chainsToRoot = 0
        /// Credential certificates validated against an intermediate already verified against its root: one P-384
        /// verification. One refused there goes on to the full validation and is counted in ``chainsToRoot`` too.
        package var linksToVerifiedIntermediate = 0

        package init(chainsToRoot: Int = 0, linksToVerifiedIntermediate: Int = 0) {
            self.chainsToRoot = chainsToRoot
            self.linksToVerifiedIntermediate = linksToVerifiedIntermediate
        }
    }

    private let state = Mutex(Counts())

    package init() {}

    /// The validations counted so far.
    package var counts: Counts { state.withLock { $0 } }

    /// Counts one validation of a kind.
    func count(_ kind: WritableKeyPath<Counts, Int>) {
        state.withLock { $0[keyPath: kind] += 1 }
    }
}
