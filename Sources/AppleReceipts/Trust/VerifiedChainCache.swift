package import Foundation
import Synchronization
package import X509

/// Certificates a verifier has validated up to a pinned root, each set with the window in which all of them are valid,
/// so that the part of a chain Apple puts in every object is not checked again for each one: the receipt verifier keeps
/// a signer's whole chain, the attestation verifier the link from Apple's App Attest intermediate to its root. Only what
/// is the same for every object is remembered; what varies (a receipt's CMS signature, a credential certificate) is
/// always checked.
///
/// The caller names what it validated by a key made of the certificates' exact bytes. A remembered entry holds only
/// while the instant lies inside its window, applying the clock-skew tolerance as ``ValidityWindowPolicy`` does, so an
/// entry gives the answer a full check would give at that instant. At most `capacity` entries are kept (Apple rotates
/// a handful); beyond it the cache starts afresh.
package final class VerifiedChainCache<Key: Hashable & Sendable>: Sendable {
    /// The latest `notValidBefore` and earliest `notValidAfter` of validated certificates.
    struct Window {
        let notBefore: Date
        let notAfter: Date

        init(_ certificates: [Certificate]) {
            notBefore = certificates.map(\.notValidBefore).max() ?? .distantFuture
            notAfter = certificates.map(\.notValidAfter).min() ?? .distantPast
        }

        func contains(_ instant: Date, tolerance: TimeInterval) -> Bool {
            notBefore <= instant.addingTimeInterval(tolerance) && notAfter >= instant.addingTimeInterval(-tolerance)
        }
    }

    /// How far either validity bound may be missed, in seconds (the verifier's clock-skew tolerance).
    let tolerance: TimeInterval
    /// The most entries kept.
    let capacity: Int
    private let windows = Mutex<[Key: Window]>([:])

    package init(clockSkewTolerance: TimeInterval, capacity: Int = 64) {
        self.tolerance = max(0, clockSkewTolerance)
        self.capacity = capacity
    }

    /// Whether the certificates remembered under `key` are all valid at `instant`, within the clock-skew tolerance.
    package func holds(_ key: Key, at instant: Date) -> Bool {
        guard let window = windows.withLock({ $0[key] }) else { return false }
        return window.contains(instant, tolerance: tolerance)
    }

    /// Remembers certificates validated up to a pinned root under `key`, with the window in which all of them are valid.
    package func remember(_ certificates: [Certificate], for key: Key) {
        let window = Window(certificates)
        windows.withLock { windows in
            if windows.count >= capacity { windows.removeAll(keepingCapacity: true) }
            windows[key] = window
        }
    }
}
