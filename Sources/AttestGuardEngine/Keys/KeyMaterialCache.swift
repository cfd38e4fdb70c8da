import AttestGuardStore
import AttestVocabulary
import Crypto
import Foundation
import Synchronization

/// What never changes about a registered key, kept in process so that an assertion needs no look-up before its
/// commit: the parsed public key, the user, the device and the environment. The key's status and counter are not
/// here: the commit enforces them in the store, which stays the one truth across processes. Only keys the store
/// returned are kept (an unknown key id is looked up every time), at most ``capacity`` of them; when full, the
/// oldest half is dropped.
final class KeyMaterialCache: Sendable {
    /// A key's immutable material.
    struct Material: Sendable {
        var publicKey: P256.Signing.PublicKey
        var userId: String
        var deviceId: String?
        var environment: AppAttestEnvironment
        /// The operating-system version the key was attested on (the build policy's strict mode reads it).
        var osVersion: String?
    }

    private struct Entry: Hashable {
        var appId: String
        var keyId: Data
    }

    private struct State {
        var materials: [Entry: Material] = [:]
        /// Insertion order, for dropping the oldest entries.
        var order: [Entry] = []
    }

    /// The most keys kept.
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int = 100_000) {
        self.capacity = max(2, capacity)
    }

    /// The material of a key kept before.
    func material(appId: String, keyId: Data) -> Material? {
        state.withLock { $0.materials[Entry(appId: appId, keyId: keyId)] }
    }

    /// Keeps the material of a key the store returned.
    func keep(_ material: Material, appId: String, keyId: Data) {
        state.withLock { state in
            let entry = Entry(appId: appId, keyId: keyId)
            guard state.materials.updateValue(material, forKey: entry) == nil else { return }
            state.order.append(entry)
            if state.order.count > capacity {
                let dropped = state.order.prefix(state.order.count / 2)
                for old in dropped { state.materials[old] = nil }
                state.order.removeFirst(dropped.count)
            }
        }
    }

    /// How many keys are kept.
    var count: Int { state.withLock { $0.materials.count } }
}
