public import Foundation

/// The Linux Keychain: generic-password items in memory, for the life of the process, with the four `SecItem`
/// calls' Apple signatures and status codes. Tests read ``items`` to see what the client stored and with which
/// attributes, and ``removeAll()`` to start clean.
public enum SecurityStubKeychain {
    /// One stored item: every attribute it was added with, its data under `kSecValueData`.
    public typealias Item = [String: Any]

    private final class Storage: @unchecked Sendable {
        let lock = NSLock()
        var items: [Item] = []
    }

    private static let storage = Storage()

    /// A copy of the stored items.
    public static var items: [Item] {
        storage.lock.lock()
        defer { storage.lock.unlock() }
        return storage.items
    }

    /// Deletes every item.
    public static func removeAll() {
        storage.lock.lock()
        storage.items.removeAll()
        storage.lock.unlock()
    }

    static func withItems<Result>(_ body: (inout [Item]) -> Result) -> Result {
        storage.lock.lock()
        defer { storage.lock.unlock() }
        return body(&storage.items)
    }

    /// The attributes that identify a generic password: class, service, account and access group.
    static let identity = [kSecClass as String, kSecAttrService as String, kSecAttrAccount as String, kSecAttrAccessGroup as String]

    static func attributes(_ dictionary: CFDictionary) -> [String: Any] {
        var attributes: [String: Any] = [:]
        for (key, value) in dictionary {
            guard let key = key as? String else { continue }
            attributes[key] = value
        }
        return attributes
    }

    static func matches(_ item: Item, _ query: [String: Any]) -> Bool {
        identity.allSatisfy { name in
            guard let wanted = query[name] as? String else { return true }
            return (item[name] as? String) == wanted
        }
    }
}

public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    let added = SecurityStubKeychain.attributes(attributes)
    guard added[kSecClass as String] != nil, added[kSecValueData as String] is Data else { return errSecParam }
    return SecurityStubKeychain.withItems { items in
        let identity = added.filter { SecurityStubKeychain.identity.contains($0.key) }
        guard !items.contains(where: { SecurityStubKeychain.matches($0, identity) }) else { return errSecDuplicateItem }
        items.append(added)
        return errSecSuccess
    }
}

public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    let query = SecurityStubKeychain.attributes(query)
    return SecurityStubKeychain.withItems { items in
        guard let item = items.first(where: { SecurityStubKeychain.matches($0, query) }) else { return errSecItemNotFound }
        if (query[kSecReturnData as String] as? Bool) == true, let data = item[kSecValueData as String] as? Data {
            result?.pointee = NSData(data: data)
        }
        return errSecSuccess
    }
}

public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    let query = SecurityStubKeychain.attributes(query)
    let update = SecurityStubKeychain.attributes(attributesToUpdate)
    return SecurityStubKeychain.withItems { items in
        guard let index = items.firstIndex(where: { SecurityStubKeychain.matches($0, query) }) else { return errSecItemNotFound }
        items[index].merge(update) { _, new in new }
        return errSecSuccess
    }
}

public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    let query = SecurityStubKeychain.attributes(query)
    return SecurityStubKeychain.withItems { items in
        let before = items.count
        items.removeAll { SecurityStubKeychain.matches($0, query) }
        return items.count < before ? errSecSuccess : errSecItemNotFound
    }
}
