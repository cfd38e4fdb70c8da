import Foundation

/// Where the client keeps a user's App Attest key id between launches: the Keychain on a device
/// (``KeychainKeyIdStore``), memory in tests. One entry per user of the install; the private key itself never
/// leaves the Secure Enclave, only its id is stored.
public protocol KeyIdStore: Sendable {
    /// Where the entries live (a Keychain service and access group, one object in memory): clients of the same
    /// location and account share one attestation in the process.
    var location: String { get }
    /// The stored key of `account`, or nil.
    func load(account: String) throws -> StoredKey?
    /// Stores `key` for `account`, replacing what was there.
    func save(_ key: StoredKey, account: String) throws
    /// Forgets `account`'s key; nothing happens when there is none.
    func delete(account: String) throws
}

/// A key id as the client keeps it, and whether AttestGuard registered it.
public struct StoredKey: Codable, Sendable, Hashable {
    /// The key id `generateKey` returned (base64).
    public var keyId: String
    /// True once the gateway answered the attestation with success; until then the key is attested again.
    public var registered: Bool

    /// The key `keyId`, registered with AttestGuard or not yet.
    public init(keyId: String, registered: Bool) {
        self.keyId = keyId
        self.registered = registered
    }
}

/// A ``KeyIdStore`` in memory, for previews and tests: what it holds is gone when the process ends.
public final class InMemoryKeyIdStore: KeyIdStore, @unchecked Sendable {
    private let lock = NSLock()
    private var keys: [String: StoredKey] = [:]

    /// An empty store.
    public init() {}

    public var location: String { "memory:\(ObjectIdentifier(self).hashValue)" }

    public func load(account: String) throws -> StoredKey? {
        lock.lock()
        defer { lock.unlock() }
        return keys[account]
    }

    public func save(_ key: StoredKey, account: String) throws {
        lock.lock()
        defer { lock.unlock() }
        keys[account] = key
    }

    public func delete(account: String) throws {
        lock.lock()
        defer { lock.unlock() }
        keys[account] = nil
    }
}
