import Foundation
import Synchronization
import X509

/// The signer chains one ``ReceiptVerifier`` has validated, each with the window in which every certificate of the
/// validated chain is valid, so that the chain Apple puts in every receipt is not built and checked again for each
/// one. Only the chain is remembered: each receipt's own CMS signature is always checked.
///
/// A chain is identified by the exact bytes of the envelope's certificates and which of them signed. A hit counts
/// only inside the remembered window, applying the clock-skew tolerance as ``ValidityWindowPolicy`` does, so a
/// cached answer is the answer a full check would give at that instant.
final class VerifiedChainCache: Sendable {
    struct Key: Hashable {
        /// SHA-256 over the DER of every certificate in the envelope, in order.
        let certificatesDigest: [UInt8]
        /// Which certificate is the signer's.
        let signerIndex: Int
    }

    /// The latest `notValidBefore` and earliest `notValidAfter` of a validated chain.
    struct Window {
        let notBefore: Date
        let notAfter: Date

        init(_ chain: [Certificate]) {
            notBefore = chain.map(\.notValidBefore).max() ?? .distantFuture
            notAfter = chain.map(\.notValidAfter).min() ?? .distantPast
        }

        func contains(_ instant: Date, tolerance: TimeInterval) -> Bool {
            notBefore <= instant.addingTimeInterval(tolerance) && notAfter >= instant.addingTimeInterval(-tolerance)
        }
    }

    /// At most this many chains are kept (Apple rotates a handful); beyond it the cache starts afresh.
    static let capacity = 64
    private let windows = Mutex<[Key: Window]>([:])

    func window(for key: Key) -> Window? {
        windows.withLock { $0[key] }
    }

    func remember(_ chain: [Certificate], for key: Key) {
        windows.withLock { windows in
            if windows.count >= Self.capacity { windows.removeAll(keepingCapacity: true) }
            windows[key] = Window(chain)
        }
    }
}
