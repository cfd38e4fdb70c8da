import AttestVocabulary
import AttestTestSupport
import Foundation
import AttestGuardStore
import Testing

@Suite("DeviceCheck bits in the store")
struct DeviceCheckStoreTests {
    static let subject = DeviceCheckSubject(kind: .user, value: "user-1")

    static func record(bit0: Bool?, bit1: Bool?, found: Bool = true, month: String? = "2026-11", at offset: TimeInterval) -> DeviceCheckRecord {
        DeviceCheckRecord(scope: .app("ABCDE12345.com.example.app"), environment: .production, subject: subject, bit0: bit0, bit1: bit1, found: found,
                          lastUpdateTime: month, observedAt: StoreFixtures.now.addingTimeInterval(offset))
    }

    @Test("bits are stored per team, environment and subject; a partial update keeps the other bit", arguments: StoreBackend.available)
    func storeAndMerge(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            #expect(try await store.deviceCheckBits(scope: .app("ABCDE12345.com.example.app"), environment: .production, subject: Self.subject) == nil)
            try await store.storeDeviceCheckBits(Self.record(bit0: true, bit1: false, at: 0))
            try await store.storeDeviceCheckBits(Self.record(bit0: nil, bit1: true, month: nil, at: 10))
            let merged = try #require(try await store.deviceCheckBits(scope: .app("ABCDE12345.com.example.app"), environment: .production, subject: Self.subject))
            #expect(merged.bit0 == true)
            #expect(merged.bit1 == true)
            #expect(merged.lastUpdateTime == "2026-11")
            #expect(merged.observedAt == StoreFixtures.now.addingTimeInterval(10))
            #expect(try await store.deviceCheckBits(scope: .app("ABCDE12345.com.example.app"), environment: .development, subject: Self.subject) == nil)
            #expect(try await store.deviceCheckBits(scope: .app("ABCDE12345.com.example.app"), environment: .production,
                                                    subject: DeviceCheckSubject(kind: .device, value: "user-1")) == nil)
        }
    }

    @Test("an older observation never overwrites a newer one; not found clears the bits", arguments: StoreBackend.available)
    func ordering(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await store.storeDeviceCheckBits(Self.record(bit0: true, bit1: true, at: 20))
            try await store.storeDeviceCheckBits(Self.record(bit0: false, bit1: false, at: 5))
            #expect(try await store.deviceCheckBits(scope: .app("ABCDE12345.com.example.app"), environment: .production, subject: Self.subject)?.bit0 == true)
            try await store.storeDeviceCheckBits(Self.record(bit0: nil, bit1: nil, found: false, month: nil, at: 30))
            let cleared = try #require(try await store.deviceCheckBits(scope: .app("ABCDE12345.com.example.app"), environment: .production, subject: Self.subject))
            #expect(cleared.found == false)
            #expect(cleared.bit0 == nil && cleared.bit1 == nil && cleared.lastUpdateTime == nil)
        }
    }
}

@Suite("DeviceCheck bits: scopes")
struct DeviceCheckScopeStoreTests {
    @Test("scopes keep bits apart; team rows from before schema 12 are purged after their retention", arguments: StoreBackend.available)
    func scopesAndPurge(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let subject = DeviceCheckSubject(kind: .device, value: "device-9")
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            func record(_ scope: DeviceCheckScope, observedAt: Date) -> DeviceCheckRecord {
                DeviceCheckRecord(scope: scope, environment: .production, subject: subject, bit0: true, bit1: nil, found: true,
                                  lastUpdateTime: "2027-01", observedAt: observedAt)
            }
            try await store.storeDeviceCheckBits(record(.app("ABCDE12345.com.example.a"), observedAt: now.addingTimeInterval(-90 * 86_400)))
            try await store.storeDeviceCheckBits(record(.shared(teamId: "ABCDE12345"), observedAt: now.addingTimeInterval(-90 * 86_400)))
            try await store.storeDeviceCheckBits(record(.legacyTeam(teamId: "ABCDE12345"), observedAt: now.addingTimeInterval(-31 * 86_400)))
            try await store.storeDeviceCheckBits(record(.legacyTeam(teamId: "FGHIJ67890"), observedAt: now.addingTimeInterval(-29 * 86_400)))
            #expect(try await store.deviceCheckBits(scope: .app("ABCDE12345.com.example.b"), environment: .production, subject: subject) == nil)

            let cutoff = now.addingTimeInterval(-Double(DeviceCheckScope.legacyRetentionDays) * 86_400)
            #expect(try await store.purgeLegacyDeviceCheckBits(observedBefore: cutoff) == 1)
            #expect(try await store.deviceCheckBits(scope: .legacyTeam(teamId: "ABCDE12345"), environment: .production, subject: subject) == nil)
            #expect(try await store.deviceCheckBits(scope: .legacyTeam(teamId: "FGHIJ67890"), environment: .production, subject: subject) != nil)
            #expect(try await store.deviceCheckBits(scope: .app("ABCDE12345.com.example.a"), environment: .production, subject: subject) != nil)
            #expect(try await store.deviceCheckBits(scope: .shared(teamId: "ABCDE12345"), environment: .production, subject: subject) != nil)
        }
    }
}

@Suite("DeviceCheck validations in the store")
struct DeviceCheckValidationStoreTests {
    static func validation(_ user: String = "user-1", app: String = StoreFixtures.appId, environment: AppAttestEnvironment = .production,
                           at offset: TimeInterval) -> DeviceCheckValidationRecord {
        DeviceCheckValidationRecord(appId: app, userId: user, environment: environment, validatedAt: StoreFixtures.now.addingTimeInterval(offset))
    }

    @Test("one per app and user; the latest instant wins, an older one changes nothing", arguments: StoreBackend.available)
    func latestWins(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            #expect(try await store.deviceCheckValidation(appId: StoreFixtures.appId, userId: "user-1") == nil)
            try await store.recordDeviceCheckValidation(Self.validation(at: 10))
            #expect(try await store.deviceCheckValidation(appId: StoreFixtures.appId, userId: "user-1") == Self.validation(at: 10))

            try await store.recordDeviceCheckValidation(Self.validation(environment: .development, at: 5))
            #expect(try await store.deviceCheckValidation(appId: StoreFixtures.appId, userId: "user-1") == Self.validation(at: 10), "older: kept the newer")
            try await store.recordDeviceCheckValidation(Self.validation(environment: .development, at: 3_600))
            #expect(try await store.deviceCheckValidation(appId: StoreFixtures.appId, userId: "user-1") == Self.validation(environment: .development, at: 3_600))

            #expect(try await store.deviceCheckValidation(appId: StoreFixtures.otherAppId, userId: "user-1") == nil, "per app")
            #expect(try await store.deviceCheckValidation(appId: StoreFixtures.appId, userId: "user-2") == nil, "per user")
            try await store.recordDeviceCheckValidation(Self.validation(app: StoreFixtures.otherAppId, at: 0))
            #expect(try await store.deviceCheckValidation(appId: StoreFixtures.otherAppId, userId: "user-1") == Self.validation(app: StoreFixtures.otherAppId, at: 0))
            #expect(try await store.deviceCheckValidation(appId: StoreFixtures.appId, userId: "user-1")?.validatedAt == StoreFixtures.now.addingTimeInterval(3_600))
        }
    }
}
