#if os(Linux)
import AttestGuardClient
import DeviceCheck
import Foundation
import SecurityStub
import Testing

/// The real DeviceCheck and Keychain code, run against the Linux stand-ins: the Keychain item's attributes, and a
/// device without App Attest as the system provider reports it.
@Suite(.serialized)
struct SystemProvidersTests {
    @Test func theKeychainKeepsOneItemPerUserThisDeviceOnly() throws {
        let service = "keychain-test-\(UUID().uuidString)"
        let store = KeychainKeyIdStore(service: service)
        #expect(try store.load(account: "alice") == nil)
        try store.save(StoredKey(keyId: "a", registered: false), account: "alice")
        try store.save(StoredKey(keyId: "a", registered: true), account: "alice")
        try store.save(StoredKey(keyId: "b", registered: true), account: "bob")
        #expect(try store.load(account: "alice") == StoredKey(keyId: "a", registered: true))
        let items = SecurityStubKeychain.items.filter { ($0[kSecAttrService as String] as? String) == service }
        #expect(items.count == 2)
        for item in items {
            #expect(item[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String)
            #expect(item[kSecClass as String] as? String == kSecClassGenericPassword as String)
        }
        try store.delete(account: "alice")
        try store.delete(account: "alice")
        #expect(try store.load(account: "alice") == nil)
        #expect(try store.load(account: "bob")?.keyId == "b")
    }

    @Test func anUnreadableKeychainEntryIsTreatedAsNoKey() throws {
        let service = "keychain-test-\(UUID().uuidString)"
        let attributes: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "alice", kSecValueData as String: Data("not json".utf8),
        ]
        #expect(SecItemAdd(attributes as CFDictionary, nil) == errSecSuccess)
        #expect(try KeychainKeyIdStore(service: service).load(account: "alice") == nil)
    }

    @Test func theSystemProviderReportsADeviceWithoutAppAttest() async throws {
        let provider = SystemAppAttestProvider()
        #expect(await provider.isSupported == false)
        await #expect {
            _ = try await provider.generateKey()
        } throws: { ($0 as? AppAttestFailure)?.code == .featureUnsupported }
        await #expect {
            _ = try await SystemDeviceCheckTokenProvider().generateToken()
        } throws: { ($0 as? AppAttestFailure)?.code == .featureUnsupported }
        #expect(DCError(.serverUnavailable).code.rawValue == 4 && DCError(.invalidKey).code.rawValue == 3)
    }
}
#endif
