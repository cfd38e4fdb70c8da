import AttestTestSupport
import Foundation
@testable import AttestGuardStore
import Testing

@Suite("Debug tokens in the store")
struct DebugTokenStoreTests {
    static let appId = "ABCDE12345.com.example.app"
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Stands for the secret's SHA-256: the store keeps whatever bytes it is given.
    static func digest(_ secret: String) -> Data { Data("sha256:\(secret)".utf8) }

    static func token(_ id: String, secret: String, app: String = appId, createdAt: Date = start) -> DebugTokenRecord {
        DebugTokenRecord(
            id: id, appId: app, name: "\(id)'s simulator", secretSha256: digest(secret), createdAt: createdAt,
            expiresAt: createdAt.addingTimeInterval(86_400), createdBy: "admin"
        )
    }

    @Test("kept by the secret's hash, never twice; listed newest first per app; revoked once; uses added", arguments: StoreBackend.available)
    func lifecycle(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            #expect(try await store.createDebugToken(Self.token("dbg_a", secret: "one")))
            #expect(try await store.createDebugToken(Self.token("dbg_b", secret: "two", createdAt: Self.start.addingTimeInterval(60))))
            #expect(try await !store.createDebugToken(Self.token("dbg_c", secret: "one")), "a secret is one token's")
            #expect(try await !store.createDebugToken(Self.token("dbg_a", secret: "three")), "an id is one token's")
            #expect(try await store.createDebugToken(Self.token("dbg_x", secret: "four", app: "ABCDE12345.com.example.other")))

            #expect(try await store.debugTokens(appId: Self.appId, limit: 10).map(\.id) == ["dbg_b", "dbg_a"])
            #expect(try await store.debugTokens(appId: Self.appId, limit: 1).map(\.id) == ["dbg_b"])
            let found = try #require(try await store.debugToken(secretSha256: Self.digest("one")))
            #expect(found == Self.token("dbg_a", secret: "one"))
            #expect(try await store.debugToken(secretSha256: Self.digest("nope")) == nil)

            let revoked = try #require(try await store.revokeDebugToken(appId: Self.appId, id: "dbg_a", at: Self.start.addingTimeInterval(120)))
            #expect(revoked.revokedAt == Self.start.addingTimeInterval(120))
            let again = try await store.revokeDebugToken(appId: Self.appId, id: "dbg_a", at: Self.start.addingTimeInterval(600))
            #expect(again?.revokedAt == Self.start.addingTimeInterval(120), "revoked at its first instant")
            #expect(try await store.revokeDebugToken(appId: Self.appId, id: "dbg_x", at: Self.start) == nil, "another app's token")
            #expect(try await store.revokeDebugToken(appId: Self.appId, id: "dbg_none", at: Self.start) == nil)

            try await store.addDebugTokenUses([
                DebugTokenUse(id: "dbg_b", count: 3, lastUsedAt: Self.start.addingTimeInterval(200)),
                DebugTokenUse(id: "dbg_gone", count: 1, lastUsedAt: Self.start),
            ])
            try await store.addDebugTokenUses([DebugTokenUse(id: "dbg_b", count: 2, lastUsedAt: Self.start.addingTimeInterval(100))])
            let used = try #require(try await store.debugTokens(appId: Self.appId, limit: 10).first)
            #expect(used.uses == 5)
            #expect(used.lastUsedAt == Self.start.addingTimeInterval(200), "a late batch never moves the last use back")
        }
    }
}
