import AttestGuardClient
import AttestGuardClientTesting
import AttestGuardWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// An App Clip hands its key to the full app through the App Group's shared container: the full app signs with the
/// Clip's key and never attests a second one.
struct AppGroupKeyStoreTests {
    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-app-group-\(UUID().uuidString)", isDirectory: true)
    }

    @Test func theFullAppSignsWithTheClipsKey() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // One device, one App ID (the Clip attests under the full app's): the Secure Enclave key is the same one.
        let scripted = ScriptedClient()
        func client(_ store: AppGroupKeyIdStore) -> AttestGuardClient {
            AttestGuardClient(
                configuration: .init(gateway: ScriptedGateway.base, user: "alice", clock: scripted.clock),
                provider: scripted.provider, keyStore: store, transport: scripted.gateway
            )
        }

        let clip = client(AppGroupKeyIdStore(directory: folder))
        _ = try await clip.send(ScriptedClient.request("POST"))
        let clipKey = try #require(try AppGroupKeyIdStore(directory: folder).load(account: "alice"))
        #expect(clipKey.registered)

        // The full app, installed later, opens the same container.
        let fullApp = client(AppGroupKeyIdStore(directory: folder))
        _ = try await fullApp.send(ScriptedClient.request("POST", "/api/account"))
        let calls = await scripted.provider.calls
        #expect(calls[.generateKey] == 1 && calls[.attestKey] == 1, "one attestation for the Clip and the app together")
        #expect(scripted.gateway.attestations.count == 1)
        let keyIds = scripted.gateway.protected.map { $0.value(forHTTPHeaderField: AppAttestHeader.keyId.rawValue) }
        #expect(keyIds.count == 2 && Set(keyIds) == [clipKey.keyId])
    }

    @Test func aKeyTheFullAppCannotUseIsReplaced() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scripted = ScriptedClient()
        let store = AppGroupKeyIdStore(directory: folder)
        // An id the device never made (the Clip ran on another phone, or a backup brought the container along).
        try store.save(StoredKey(keyId: Data(repeating: 7, count: 32).base64EncodedString(), registered: true), account: "alice")
        let client = AttestGuardClient(
            configuration: .init(gateway: ScriptedGateway.base, user: "alice", clock: scripted.clock),
            provider: scripted.provider, keyStore: store, transport: scripted.gateway
        )
        _ = try await client.send(ScriptedClient.request("POST"))
        #expect(await scripted.provider.calls[.attestKey] == 1, "a new key, attested once")
        #expect(try store.load(account: "alice")?.keyId != Data(repeating: 7, count: 32).base64EncodedString())
    }

    @Test func entriesAreFilesNamedByTheAccountsHash() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = AppGroupKeyIdStore(directory: folder)
        #expect(try store.load(account: "../../etc/passwd") == nil)
        try store.delete(account: "nobody")
        let key = StoredKey(keyId: "a2V5", registered: false)
        for account in ["alice", "../../etc/passwd", "ユーザー", ""] {
            try store.save(key, account: account)
            #expect(try store.load(account: account) == key, "\(account)")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(files.count == 4 && files.allSatisfy { $0.count == 64 + 5 && $0.hasSuffix(".json") })
        try store.delete(account: "alice")
        #expect(try store.load(account: "alice") == nil)
        #expect(store.location == AppGroupKeyIdStore(directory: folder).location)

        // A file this version cannot read is no key: the client attests a new one.
        let other = AppGroupKeyIdStore(directory: Self.folder())
        defer { try? FileManager.default.removeItem(at: other.directory) }
        try other.save(key, account: "bob")
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: other.directory.path).first)
        try Data("not json".utf8).write(to: other.directory.appendingPathComponent(file))
        #expect(try other.load(account: "bob") == nil)
    }
}

#if !os(macOS)
extension AppGroupKeyStoreTests {
    /// Without the App Groups entitlement there is no container (this test process has none). macOS answers a
    /// location for any group, so there the store's own probe decides, which depends on the process's sandbox.
    @Test func aGroupWithoutAContainerIsRefused() {
        #expect {
            try AppGroupKeyIdStore(appGroup: "group.com.example.not-entitled")
        } throws: { error in
            (error as? AppGroupKeyIdStore.Failure)?.operation == "container"
        }
    }
}
#endif
