import AttestTestSupport
import Foundation
@testable import AttestGuardStore
import Testing

@Suite("Attestation rollout ramp in the store")
struct AttestationRampStoreTests {
    static let appId = "ABCDE12345.com.example.app"

    @Test("outcome counters add atomically, per app, period and outcome", arguments: StoreBackend.available)
    func counters(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await store.countAttestationOutcome(appId: Self.appId, periodStart: 3600, outcome: .attested, count: 1) }
                }
                try await group.waitForAll()
            }
            try await store.countAttestationOutcome(appId: Self.appId, periodStart: 3600, outcome: .rateLimited, count: 3)
            try await store.countAttestationOutcome(appId: Self.appId, periodStart: 7200, outcome: .attested, count: 5)
            try await store.countAttestationOutcome(appId: "ABCDE12345.com.example.other", periodStart: 3600, outcome: .attested, count: 7)
            let counts = try await store.attestationOutcomeCounts(appId: Self.appId, periodStart: 3600)
            #expect(counts == AttestationOutcomeCounts([.attested: 20, .rateLimited: 3]))
            #expect(counts[.accepted] == 0)
            #expect(try await store.attestationOutcomeCounts(appId: Self.appId, periodStart: 7200)[.attested] == 5)
        }
    }

    @Test("a reporter's outcome counts once a period, however many report at once; purged periods count afresh", arguments: StoreBackend.available)
    func reporters(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let counted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        try await store.countAttestationOutcome(appId: Self.appId, periodStart: 3600, outcome: .rateLimited, reporter: "r\(index % 4)")
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(counted == 4)
            #expect(try await store.countAttestationOutcome(appId: Self.appId, periodStart: 3600, outcome: .failed, reporter: "r0"), "another outcome counts")
            #expect(try await store.countAttestationOutcome(appId: Self.appId, periodStart: 7200, outcome: .rateLimited, reporter: "r0"), "another period counts")
            let counts = try await store.attestationOutcomeCounts(appId: Self.appId, periodStart: 3600)
            #expect(counts[.rateLimited] == 4 && counts[.failed] == 1)
            try await store.purgeAttestationOutcomeReporters(appId: Self.appId, before: 7200)
            #expect(try await store.countAttestationOutcome(appId: Self.appId, periodStart: 3600, outcome: .rateLimited, reporter: "r0"), "purged")
            #expect(try await !store.countAttestationOutcome(appId: Self.appId, periodStart: 7200, outcome: .rateLimited, reporter: "r0"), "kept")
        }
    }

    @Test("a ramp write lands only on the revision it read; every value reads back", arguments: StoreBackend.available)
    func revisions(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            #expect(try await store.attestationRamps().isEmpty)
            let started = AttestationRampRecord(
                appId: Self.appId, percent: 1, state: "ramping", evaluatedPeriod: 0, revision: 1, updatedAt: StoreFixtures.now, updatedBy: "ramp"
            )
            #expect(try await store.replaceAttestationRamp(started, expectedRevision: 0))
            #expect(try await !store.replaceAttestationRamp(started, expectedRevision: 0), "a second start loses")
            #expect(try await store.attestationRamps() == [started])
            var stepped = started
            stepped.percent = 2
            stepped.evaluatedPeriod = 86_400
            stepped.periodAttempts = 120
            stepped.periodSuccesses = 118
            stepped.periodRateLimited = 1
            stepped.lastStepAt = StoreFixtures.now.addingTimeInterval(86_400)
            stepped.revision = 2
            #expect(try await store.replaceAttestationRamp(stepped, expectedRevision: 1))
            var other = stepped
            other.percent = 4
            other.revision = 3
            #expect(try await !store.replaceAttestationRamp(other, expectedRevision: 1), "a process that read revision 1 takes no step")
            #expect(try await store.attestationRamps() == [stepped])
        }
    }
}
