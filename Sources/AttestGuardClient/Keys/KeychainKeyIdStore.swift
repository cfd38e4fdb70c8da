import Foundation
#if canImport(Security)
import Security
#else
import SecurityStub
#endif

/// Key ids in the Keychain: one generic-password item per user under `service`, readable after the first unlock
/// and never leaving the device (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`: an App Attest key does not
/// exist on another device, so a backup restored there must not bring its id). A Keychain item survives the app's
/// deletion while its key does not: the next assertion then fails with `invalidKey` and the client attests a new key.
public struct KeychainKeyIdStore: KeyIdStore {
    /// The Keychain service the items are filed under.
    public let service: String
    /// The access group shared with the app's extensions, if any (`kSecAttrAccessGroup`).
    public let accessGroup: String?

    /// Key ids under `service`, shared through `accessGroup` with the app's extensions when it is set.
    public init(service: String = "AttestGuardClient", accessGroup: String? = nil) {
        self.service = service
        self.accessGroup = accessGroup
    }

    public var location: String { "keychain:\(accessGroup ?? ""):\(service)" }

    /// Why the Keychain refused.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The `OSStatus` of the failed call.
        public let status: Int32
        /// The call that failed: `read`, `write` or `delete`.
        public let operation: String

        public var description: String { "Keychain \(operation) failed with OSStatus \(status)" }
    }

    public func load(account: String) throws -> StoredKey? {
        var query = identity(account)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &item)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = item as? Data else { throw Failure(status: status, operation: "read") }
        // An entry this version cannot read is treated as absent: the client attests a new key.
        return try? JSONDecoder().decode(StoredKey.self, from: data)
    }

    public func save(_ key: StoredKey, account: String) throws {
        let data = try JSONEncoder().encode(key)
        var attributes = identity(account)
        attributes[kSecValueData as String] = data
        attributes[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        var status = SecItemAdd(attributes as CFDictionary, nil)
        if status == errSecDuplicateItem {
            let update: [String: Any] = [
                kSecValueData as String: data,
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            ]
            status = SecItemUpdate(identity(account) as CFDictionary, update as CFDictionary)
        }
        guard status == errSecSuccess else { throw Failure(status: status, operation: "write") }
    }

    public func delete(account: String) throws {
        let status = SecItemDelete(identity(account) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw Failure(status: status, operation: "delete") }
    }

    /// What names the item: class, service, account and access group, in the data-protection Keychain (iOS's;
    /// on macOS it needs a signed app with a Keychain entitlement).
    private func identity(_ account: String) -> [String: Any] {
        var identity: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecUseDataProtectionKeychain as String: true,
        ]
        if let accessGroup { identity[kSecAttrAccessGroup as String] = accessGroup }
        return identity
    }
}
